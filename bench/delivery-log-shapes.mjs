// What a delivery-log insert costs the store's write lock by the document's shape (ADR 0073): the
// notifications log document of a one-on-one message (a skip for an FCM token with no FCM provider and
// a custom provider's call, as bench/cost.mjs's features-on mix writes it) and a webhook delivery of a
// `message_sent`, each written as today and as variants, alternating, in grouped inserts of the size
// the features-on run makes (about 8 documents a command). Reads the FerretDB runner's tally
// (`--stats-interval`) from its log and prints, by shape, bytes, write-lock ms per message and this
// process's CPU to build and BSON-encode a message's document (the service's side). The shapes are
// rebuilt here as the services write them (a benchmark imports no service's compiled files): main's,
// and this build's `logBatchOf` (notifications) and `DeliveryLog` (webhooks).
//
//   .infra/bin/ferretdb --listen-addr 127.0.0.1:27517 --sqlite-dir <dir> --stats-interval 1s >runner.log 2>&1 &
//   STORE_LOG=runner.log STORE_PID=<its pid> MONGO_URL=mongodb://127.0.0.1:27517/ node bench/delivery-log-shapes.mjs
// Knobs: SHAPE_ROUNDS (150), SHAPE_BATCH (8 documents per insert).
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { BSON, MongoClient } from 'mongodb';
import { fileSize, readTally } from './storeTally.mjs';

const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27517/';
const storeLog = process.env.STORE_LOG;
const rounds = Number(process.env.SHAPE_ROUNDS ?? 150);
const batch = Number(process.env.SHAPE_BATCH ?? 8);
if (!storeLog) throw new Error('STORE_LOG: the runner log (its --stats-interval tally)');
const storePid = Number(process.env.STORE_PID ?? 0);
/** The runner's CPU ms (utime + stime, /proc): unlike busy wall time, not swollen by other load. */
const storeCpuMs = () => {
  if (!storePid) return 0;
  const fields = readFileSync(`/proc/${storePid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const storeCpu = {};

const appId = 'app-shapes';
const user = (uid) => ({ uid, name: `User ${uid}`, avatar: `https://example.test/avatars/${uid}.png`, status: 'offline', role: 'default', createdAt: 1764400000, lastActiveAt: 1764430000, tags: [] });
const messageOf = (n) => ({
  id: String(1_000_000 + n),
  conversationId: `cost-u${n % 50}_user_cost-v${n % 50}`,
  sender: `cost-u${n % 50}`,
  receiverType: 'user',
  receiver: `cost-v${n % 50}`,
  category: 'message',
  type: 'text',
  data: { text: `cost message ${n} with a few words in it`, entities: { sender: { entity: user(`cost-u${n % 50}`), entityType: 'user' }, receiver: { entity: user(`cost-v${n % 50}`), entityType: 'user' } } },
  sentAt: 1764430000 + n,
  updatedAt: 1764430000 + n,
});

/** The two entries a one-on-one message leaves in the notifications log, as the notifier builds them. */
function entriesOf(n) {
  const m = messageOf(n);
  const now = 1764430000000 + n * 10;
  const subject = (target) => ({
    notificationId: `n${n.toString(16).padStart(30, '0')}${target}`,
    trigger: 'after_message', messageId: m.id, conversationId: m.conversationId, messageCategory: 'message', messageType: 'text',
    sender: m.sender, receiver: m.receiver, receiverType: 'user', recipient: m.receiver, channel: 'push', messageSentAt: now - 40,
  });
  const skip = { ...subject('f'), provider: 'fcm', providerId: 'fcm-default', tokenType: 'fcm', pushToken: `cost-${m.receiver}`, appId, notificationTriggered: false, reason: 'INVALID_PUSH_PROVIDER_ID', processingStartedAtMS: now, processingEndedAtMS: now };
  const details = { title: `User ${m.sender}`, body: m.data.text, sender: m.sender, senderName: `User ${m.sender}`, receiver: m.receiver, receiverName: `User ${m.receiver}`, receiverType: 'user', conversationId: m.conversationId, type: 'chat', tag: m.id, sound: 'default' };
  const call = {
    ...subject('c'), provider: 'custom', providerId: 'custom', appId, notificationTriggered: true, attempt: 1, outcome: 'delivered', success: true, statusCode: 200, responsePrefix: '{"ok":true}',
    payload: { trigger: 'push-notification-payload-generated', data: { to: { uid: m.receiver }, notificationDetails: details }, appId, region: 'eu', webhook: 'custom' },
    processingStartedAtMS: now + 2, processingEndedAtMS: now + 9,
  };
  return [{ ...skip, _id: skip.notificationId }, { ...call, _id: `${call.notificationId}-1` }];
}

/** ADR 0059's compaction (`logCompaction.ts`) for a message's entries: the fields all share once, each entry its own. */
function compacted(entries) {
  const [first, ...rest] = entries;
  const shared = {};
  for (const [key, value] of Object.entries(first)) if (key !== '_id' && key !== 'payload' && rest.every((e) => JSON.stringify(e[key]) === JSON.stringify(value))) shared[key] = value;
  const withPayload = entries.find((e) => e.payload !== undefined);
  return {
    shared,
    basePayload: withPayload.payload,
    entries: entries.map((e) => {
      const own = {};
      for (const [key, value] of Object.entries(e)) if (!(key in shared) && key !== 'payload') own[key] = value;
      return e === withPayload ? { ...own, payloadChanges: [] } : own;
    }),
  };
}

/** ADR 0073's `logBatchOf`: the head fields the store reads, the compacted entries as one JSON string. */
function logBatchOf(entries) {
  const { _rev, _positions, _id, ...fields } = head(entries, 0);
  void _rev; void _positions; void _id;
  return { ...fields, packed: JSON.stringify(compacted(entries)) };
}

const head = (entries, n) => ({
  _id: `m:${appId}:${1_000_000 + n}:${Math.random().toString(36).slice(2)}`,
  appId,
  processingStartedAtMS: Math.max(...entries.map((e) => e.processingStartedAtMS)),
  firstStartedAtMS: Math.min(...entries.map((e) => e.processingStartedAtMS)),
  entryIds: entries.map((e) => e._id),
  _rev: 0,
  _positions: {},
});
const unique = () => Math.random().toString(36).slice(2);

const logShapes = {
  /** Main: a document per message, its entries compacted as fields (ADR 0049, 0059). */
  'log fields (main)': (n) => { const e = entriesOf(n); return { ...head(e, n), ...compacted(e) }; },
  /** This build: `logBatchOf` (the entries compacted, as one JSON string), written as the service writes it. */
  'log packed (0073)': (n) => ({ ...logBatchOf(entriesOf(n)), _id: `m:${appId}:${n}:${unique()}`, _rev: 0, _positions: {} }),
  /** The packed string deflated, as binary. */
  'log packed, deflated': (n) => { const d = logShapes['log packed (0073)'](n); return { ...d, packed: deflateRawSync(d.packed) }; },
  /** The same without the stored fields `_rev` and `_positions`. */
  'log packed, bare': (n) => ({ ...logBatchOf(entriesOf(n)), _id: `m:${appId}:${n}:${unique()}` }),
};
/** As this build's, in a collection without the app_started index. */
const unindexed = { 'log packed, no index': logShapes['log packed (0073)'] };
/** One document per run of `batch` messages (their entries packed together): written as one insert of one document. */
const perRun = {
  'log packed per run': (n) => ({ ...logBatchOf(Array.from({ length: batch }, (_, i) => entriesOf(n + i)).flat()), _id: `r:${n}:${unique()}`, _rev: 0, _positions: {} }),
};

function delivery(n) {
  const m = messageOf(n);
  const body = JSON.stringify({ trigger: 'message_sent', data: { message: m }, appId, region: 'eu', webhook: 'wh-cost' });
  return {
    appId, webhookId: 'wh-cost', deliveryId: `d${n.toString(16).padStart(24, '0')}${unique()}`, trigger: 'message_sent', eventId: `e${n.toString(16).padStart(24, '0')}`,
    orderKey: `${appId}:${m.conversationId}`, sourceVersion: n, body, status: 'delivered', attempts: 1, roundAttempts: 1, roundStartedAt: 1764430000000 + n,
    lastOutcome: 'delivered', responseCode: 200, latencyMs: 3, responsePrefix: 'ok', occurredAt: 1764430000000 + n, queuedAt: 1764430000001 + n, lastAttemptAt: 1764430000004 + n, deliveredAt: 1764430000004 + n,
  };
}
/** What ADR 0073's DeliveryLog hands the store for one delivery: the queried fields, the rest as JSON. */
function packedDelivery(n) {
  const { appId: a, webhookId, deliveryId, status, queuedAt, sourceVersion, attempts, ...rest } = delivery(n);
  return { _id: deliveryId, _rev: 1, _positions: {}, appId: a, webhookId, status, queuedAt, sourceVersion, attempts, packed: JSON.stringify(rest) };
}
const deliveryShapes = {
  /** Main: every field of the delivery its own (ADR 0044). */
  'delivery fields (main)': (n) => { const d = delivery(n); return { ...d, _id: d.deliveryId, _positions: {}, _rev: 1 }; },
  /** This build: the queried fields, the rest one JSON string. */
  'delivery packed (0073)': (n) => packedDelivery(n),
  /** Main's, its body deflated (binary). */
  'delivery, body deflated': (n) => { const d = delivery(n); return { ...d, body: deflateRawSync(d.body), _id: d.deliveryId, _positions: {}, _rev: 1 }; },
  /** The same without `_positions`. */
  'delivery packed, bare': (n) => { const { _positions, ...d } = packedDelivery(n); void _positions; return d; },
};
/** Main's delivery in collections with fewer of the log's two indexes. */
const deliveryIndexShapes = {
  'delivery, status index': deliveryShapes['delivery fields (main)'],
  'delivery, no index': deliveryShapes['delivery fields (main)'],
};

const shapes = { ...logShapes, ...unindexed, ...perRun, ...deliveryShapes, ...deliveryIndexShapes };
const client = new MongoClient(url);
await client.connect();
const db = client.db(`shapes_${Date.now().toString(36)}`);
const collectionOf = (name) => name.replace(/[^a-z0-9]+/gi, '_');
// Indexes as the services make them: notification_logs {appId, processingStartedAtMS}; deliveries {webhookId, appId, queuedAt} and {status}.
for (const name of [...Object.keys(logShapes), ...Object.keys(perRun)]) await db.collection(collectionOf(name)).createIndex({ appId: 1, processingStartedAtMS: -1 }, { name: 'app_started' });
for (const name of Object.keys(deliveryShapes)) {
  await db.collection(collectionOf(name)).createIndex({ webhookId: 1, appId: 1, queuedAt: -1 }, { name: 'webhook_queued' });
  await db.collection(collectionOf(name)).createIndex({ status: 1 }, { name: 'status' });
}
await db.collection(collectionOf('delivery, status index')).createIndex({ status: 1 }, { name: 'status' });
for (const name of Object.keys(shapes)) await db.collection(collectionOf(name)).insertOne({ _id: 'warm', appId, status: 'x' });
// What building and encoding a document costs this process (the service's side of the write).
const encodeUs = {};
for (let pass = 0; pass < 2; pass += 1) {
  for (const name of Object.keys(shapes)) {
    const count = name in perRun ? 250 : 2_000;
    const before = process.cpuUsage();
    for (let i = 0; i < count; i += 1) BSON.serialize(shapes[name](i));
    const used = process.cpuUsage(before);
    encodeUs[name] = ((used.user + used.system) / count) / (name in perRun ? batch : 1);
  }
}
await new Promise((r) => setTimeout(r, 1_500));
const from = fileSize(storeLog);
const bytes = Object.fromEntries(Object.keys(shapes).map((k) => [k, BSON.calculateObjectSize(shapes[k](1))]));
for (let round = 0; round < rounds; round += 1) {
  const order = Object.keys(shapes);
  if (round % 2 === 1) order.reverse();
  for (const name of order) {
    const cpuBefore = storeCpuMs();
    await db.collection(collectionOf(name)).insertMany(name in perRun ? [shapes[name](round * batch)] : Array.from({ length: batch }, (_, i) => shapes[name](round * batch + i)));
    storeCpu[name] = (storeCpu[name] ?? 0) + storeCpuMs() - cpuBefore;
  }
}
await new Promise((r) => setTimeout(r, 2_500));
const tally = readTally(storeLog, from, fileSize(storeLog), 'none');
const documents = rounds * batch;
console.log(`${documents} documents a shape, ${batch} an insert, ${rounds} rounds alternating; load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
for (const name of Object.keys(shapes)) {
  const row = tally?.rows.find((r) => r.kind === 'write' && r.command === 'insert' && r.collection.endsWith(`.${collectionOf(name)}`));
  console.log(`  ${name.padEnd(24)} ${String(bytes[name]).padStart(5)} B BSON   ${row ? (row.busyMs / documents).toFixed(3) : '?'} ms write lock${storePid ? ` ${(storeCpu[name] / documents).toFixed(3)} ms runner CPU` : ''} a message   ${encodeUs[name].toFixed(1).padStart(5)} µs to build and encode a message's   (${row?.statements ?? 0} stmts, ${row?.commands ?? 0} cmds)`);
}
await db.dropDatabase();
await client.close();
