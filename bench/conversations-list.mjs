// Conversation list latency: GET /v3/conversations through the gateway for a user with 100 and a user
// with 10,000 conversations; prints p50/p99 of each and the p99 ratio (goal: at most 2).
//
// Seeding 10,000 conversations through HTTP would take minutes at FerretDB's few hundred writes/s, so
// the read model is seeded in bulk instead: the same events the services publish (UserCreated for the
// peers, one MessageSent per conversation) go through the conversations service's own projection code
// (its compiled ConversationReadModel and users projection, over in-memory stores), and the resulting
// documents are written in their stored form with insertMany in batches, exactly as the Kafka consumer
// would have left them.
import { MongoClient } from 'mongodb';
import { percentile as percentileOfSorted } from './percentile.mjs';
import { CONVERSATION_COLLECTIONS, ConversationReadModel, ConversationReadModels, memoryConversationStores, storeOf, usersProjection } from '@chat/conversations';
import { startBenchStack } from './stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 20);
const SIZES = { light: 100, heavy: Number(process.env.BENCH_CONVERSATIONS ?? 10_000) };
// Messages more per conversation on each user's first page, written by the service's own store code
// after the seed (what a timeline and an inbox look like between two writes, ADR 0056): 0 by default.
const EXTRA_MESSAGES = Number(process.env.BENCH_EXTRA_MESSAGES ?? 0);

// A fresh Kafka log (startBenchStack's default): the services start with nothing to catch up on but
// what this benchmark sends.
const { infra, services, databaseSuffix, api, app, onStop, stop } = await startBenchStack({ name: 'bench conversations' });
const { appId, chat } = app;
const mongo = new MongoClient(infra.mongoUrl);
onStop(() => mongo.close());

// The two listing users are real: created through the API, projected by the service itself.
for (const uid of Object.keys(SIZES)) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });

let sequence = 0;
const envelope = (type, streamId, version, data, occurredAtMs) => ({
  id: `bench-${++sequence}`,
  type,
  schemaVersion: 1,
  appId,
  streamId,
  version,
  occurredAt: new Date(occurredAtMs).toISOString(),
  actor: { keyId: 'bench', scope: 'fullAccess' },
  correlationId: 'bench',
  causationId: null,
  data,
});

const seedStart = performance.now();
const { stores, memory } = memoryConversationStores();
const model = new ConversationReadModel(stores);
const peerDocs = [];
const nowMs = Date.now();
let messageId = 0;
// Interleaved in time, as real traffic would leave them: the light user's conversations are spread
// among the heavy user's, so neither user's documents sit at the start of a collection.
const spacing = Math.max(1, Math.floor(SIZES.heavy / SIZES.light));
const plan = [];
const seededFor = { light: [], heavy: [] };
for (let i = 0; i < SIZES.heavy; i++) {
  plan.push(['heavy', i]);
  if (i % spacing === 0 && i / spacing < SIZES.light) plan.push(['light', i / spacing]);
}
for (const [index, [owner, i]] of plan.entries()) {
  const peer = `${owner}-peer-${String(i).padStart(5, '0')}`;
  const userCreated = envelope('UserCreated', `user:${appId}:${peer}`, 1, { uid: peer, name: `Peer ${i}`, role: 'default', tags: [], createdAt: 1_700_000_000 }, nowMs);
  peerDocs.push({ ...usersProjection.evolve(null, userCreated), _id: `${appId}:${peer}`, _positions: { user: 1 }, _rev: 1 });
  const conversationId = owner < peer ? `${owner}_user_${peer}` : `${peer}_user_${owner}`;
  seededFor[owner].push({ peer, conversationId });
  const atMs = nowMs - (plan.length - index) * 1000;
  messageId += 1;
  await model.apply([
    envelope('MessageSent', `messages:${appId}:${conversationId}`, 1, {
      id: String(messageId), conversationId, sender: peer, receiver: owner, receiverType: 'user', category: 'message', type: 'text',
      data: { text: `hello from ${peer}` }, sentAt: Math.floor(atMs / 1000),
    }, atMs),
  ]);
}
const db = mongo.db(`chat_conversations_${databaseSuffix}`);
const seeded = [['users', peerDocs]];
for (const [key, collection] of Object.entries(CONVERSATION_COLLECTIONS)) {
  // The stored form the service's own store writes (arrays as JSON text where it keeps them so).
  const encoder = storeOf(db, collection);
  seeded.push([collection.name, memory[key].stored().map((record) => encoder.encode(record))]);
}
for (const [name, docs] of seeded) {
  for (let i = 0; i < docs.length; i += 500) await db.collection(name).insertMany(docs.slice(i, i + 500), { ordered: false });
}
if (EXTRA_MESSAGES > 0) {
  const live = new ConversationReadModels(db);
  const firstPages = Object.entries(seededFor).flatMap(([owner, list]) => list.slice(-100).map((seededOne) => ({ owner, ...seededOne })));
  for (let k = 1; k <= EXTRA_MESSAGES; k++) {
    const events = firstPages.map(({ owner, peer, conversationId }) => {
      messageId += 1;
      const atMs = nowMs + k * 1000;
      return envelope('MessageSent', `messages:${appId}:${conversationId}`, 1 + k, {
        id: String(messageId), conversationId, sender: peer, receiver: owner, receiverType: 'user', category: 'message', type: 'text',
        data: { text: `more from ${peer}` }, sentAt: Math.floor(atMs / 1000),
      }, atMs);
    });
    for (let i = 0; i < events.length; i += 7) await live.apply(events.slice(i, i + 7));
  }
}
console.log(`seeded ${memory.timelines.stored().length} conversations and ${peerDocs.length} peers in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

/** One request through the gateway: its latency in ms and whether it answered 200. */
async function timedList(owner) {
  const started = performance.now();
  const response = await fetch(`${services.gatewayUrl}/v3/conversations`, { headers: { ...chat, onbehalfof: owner } });
  const body = await response.json();
  return { ms: performance.now() - started, ok: response.ok, body };
}

for (const owner of Object.keys(SIZES)) {
  const { ms, ok, body } = await timedList(owner);
  const shape = ok ? `total ${body.meta.pagination.total}, ${body.data.length} on the page` : JSON.stringify(body.error);
  console.log(`first request for ${owner}: ${ok ? 200 : 'error'} in ${ms.toFixed(0)} ms (${shape})`);
}
// The two users' requests alternate, one at a time, so both see the same background load (the
// machine is shared): a drift in load cannot favour one of them.
const samples = { light: [], heavy: [] };
const failures = { light: 0, heavy: 0 };
const deadline = performance.now() + DURATION_S * 2000;
while (performance.now() < deadline) {
  for (const owner of Object.keys(SIZES)) {
    const { ms, ok } = await timedList(owner);
    samples[owner].push(ms);
    if (!ok) failures[owner] += 1;
  }
}
// Nearest rank of unsorted samples (the benchmarks' one percentile).
const percentile = (values, p) => percentileOfSorted([...values].sort((a, b) => a - b), p);
console.log(`GET /v3/conversations (100 per page) through the gateway, alternating, ${DURATION_S * 2} s in all:`);
for (const owner of Object.keys(SIZES)) {
  const values = samples[owner];
  console.log(
    `  ${String(SIZES[owner]).padStart(6)} conversations   ${String(values.length).padStart(4)} requests   ` +
      `p50 ${percentile(values, 50).toFixed(0).padStart(5)} ms   p99 ${percentile(values, 99).toFixed(0).padStart(5)} ms` +
      (failures[owner] > 0 ? `   ${failures[owner]} not 200 (504 = over the gateway's 15 s)` : ''),
  );
}
const ratio = percentile(samples.heavy, 99) / percentile(samples.light, 99);
console.log(`p99 ratio (${SIZES.heavy} / ${SIZES.light}): ${ratio.toFixed(2)} (goal ≤ 2)`);
await stop();
