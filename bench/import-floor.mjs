// node bench/import-floor.mjs [--users 3000] [--copies 0,3] [--concurrency 4] — the user import's floor
// (ADR 0131), as ADR 0113 measured the rebuild's: what importing a user must cost on this broker, driver
// and store when nothing of ours runs between them. Also a phase of bench/import.mjs, which prints it
// beside our stack's cost in the same run, on the same Kafka and FerretDB.
//
// The floor, per phase:
//  - a bare service (a child process: node:http, the mongodb driver, a kafkajs idempotent producer with
//    acks from all, as KafkaEventPublisher makes it) takes 50-user requests (`{ users: { uid: record } }`,
//    CometChat's shape and limit) and, with one command each per request: claims each uid by inserting
//    its commit `user:<appId>:<uid>@1` (unordered `insertMany`, so a duplicate fails alone and is answered
//    as such), inserts the claimed users' read-model documents (the users read model's three secondary
//    indexes), produces one `UserCreated` record per claimed user (key = stream id, the headers ours
//    carry) in one send, and answers per uid;
//  - N bare consumer groups (one child process, a kafkajs consumer each, `eachBatch`, no offset commits)
//    each `JSON.parse` every record and `insertMany` a copy of each user into a collection of their own:
//    N = 0 and N = the copies our topology keeps besides the owner's (ADR 0101: conversations.users,
//    messages.facts, notifications.notification_recipients; realtime's is gone).
// Printed per phase: users/s, CPU ms per user by process (the service, the copies, FerretDB, Kafka; this
// process, the load's client, is left out as bench/import.mjs leaves its client out), from the first
// request until every copy is in (after a warm-up request), in all and net of FerretDB's and Kafka's
// idle rate (sampled 2 s before), and the machine's bound: its cores ÷ that CPU per user.
// Starts Kafka and FerretDB (devstack) unless called with `infra`, and stops what it started.
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { createKafka, ensureTopics, loadKafkaSecurity } from '../packages/kafka/dist/index.js';
import { createLogger } from '../packages/http/dist/index.js';
import { runBareConsumer } from './bareConsumer.mjs';
import { pidFromFile, processCpuMs } from './processCpu.mjs';

/** The copies of a user our topology keeps besides the owner's (ADR 0101's table). */
export const OUR_COPIES = 3;
const BATCH = 50;
const WARM_UP = 50;
const IDLE_SAMPLE_MS = 2_000;
const PARTITIONS = 3;
const portOf = (url) => new URL(url.includes('://') ? url : `tcp://${url}`).port;
const quietKafka = (infra, clientId) => createKafka(clientId, infra.kafkaBrokers.split(','), createLogger(clientId, 'warn'), loadKafkaSecurity(process.env));

// ------------------------------------------------------------------------------------- child: service

/** The bare import service: claim, read model, produce, answer — one command each per request. */
async function runService({ infra, topic, database }) {
  const mongo = new MongoClient(infra.mongoUrl, { maxPoolSize: 20 });
  await mongo.connect();
  const db = mongo.db(database);
  const commits = db.collection('commits');
  const users = db.collection('users');
  // The users read model's secondary indexes (services/users readModels.ensureIndexes).
  await users.createIndexes([
    { key: { appId: 1, state: 1, listKey: 1 }, name: 'app_state_order' },
    { key: { appId: 1, role: 1 }, name: 'app_role' },
    { key: { appId: 1, tags: 1 }, name: 'app_tags' },
  ]);
  const producer = quietKafka(infra, 'import-floor-service').producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      answer(request, Buffer.concat(chunks)).then(
        (body) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        },
        (error) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: String(error) }));
        },
      );
    });
  });
  async function answer(request, raw) {
    const appId = String(request.headers['appid']);
    const records = Object.entries(JSON.parse(raw.toString('utf8')).users ?? {});
    const now = new Date().toISOString();
    const events = records.map(([uid, record]) => ({
      id: randomUUID(),
      type: 'UserCreated',
      schemaVersion: 1,
      appId,
      streamId: `user:${appId}:${uid}`,
      version: 1,
      occurredAt: now,
      actor: { keyId: 'floor', scope: 'fullAccess' },
      correlationId: randomUUID(),
      causationId: null,
      data: { uid, name: String(record.name), role: 'default', tags: [], createdAt: Number(record.createdAt), imported: true },
    }));
    // The uid's claim: one commit per user stream, unordered so a duplicate fails alone.
    const failed = new Set();
    try {
      await commits.insertMany(
        events.map((event) => ({ _id: `${event.streamId}@1`, streamId: event.streamId, version: 1, events: [event] })),
        { ordered: false },
      );
    } catch (error) {
      for (const writeError of error.writeErrors ?? []) failed.add(writeError.index);
      if (!error.writeErrors) throw error;
    }
    const claimed = events.filter((_, index) => !failed.has(index));
    if (claimed.length > 0) {
      await users.insertMany(
        claimed.map((event) => ({ _id: `${appId}:${event.data.uid}`, appId, ...event.data, state: 'active', listKey: event.data.name.toLowerCase(), _positions: { [event.streamId]: 1 }, _rev: 1 })),
        { ordered: false },
      );
      await producer.send({
        topic,
        acks: -1,
        messages: claimed.map((event) => ({
          key: event.streamId,
          value: JSON.stringify(event),
          headers: { type: event.type, appId, schemaVersion: '1', keyId: event.actor.keyId },
        })),
      });
    }
    return { data: Object.fromEntries(records.map(([uid], index) => [uid, failed.has(index) ? { success: false, error: { code: 'ERR_UID_ALREADY_EXISTS' } } : { success: true }])) };
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.send({ ready: true, port: server.address().port });
  await once(process, 'disconnect');
  server.close();
  await producer.disconnect();
  await mongo.close();
}

// -------------------------------------------------------------------------------------- child: copies

/** N bare consumer groups, each inserting a copy of every user it reads into a collection of its own. */
async function runCopies({ infra, topic, database, copies }) {
  const mongo = new MongoClient(infra.mongoUrl, { maxPoolSize: 20 });
  await mongo.connect();
  const db = mongo.db(database);
  const kafka = quietKafka(infra, 'import-floor-copies');
  const consumers = [];
  for (let n = 0; n < copies; n++) {
    const collection = db.collection(`copy${n}`);
    const consumer = kafka.consumer({ groupId: `${topic}.copy${n}`, maxWaitTimeInMs: 100 });
    await runBareConsumer(consumer, topic, PARTITIONS, async ({ batch }) => {
      const documents = batch.messages.map((message) => {
        const event = JSON.parse(message.value.toString('utf8'));
        return { _id: `${event.appId}:${event.data.uid}`, appId: event.appId, uid: event.data.uid, name: event.data.name, role: event.data.role, _positions: { [event.streamId]: event.version }, _rev: 1 };
      });
      await collection.insertMany(documents, { ordered: false });
    });
    consumers.push(consumer);
  }
  process.send({ ready: true });
  await once(process, 'disconnect');
  for (const consumer of consumers) await consumer.disconnect();
  await mongo.close();
}

// -------------------------------------------------------------------------------------------- parent

async function startChild(role, options) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', role], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: '1' },
  });
  child.send(options);
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`import floor: the ${role} child exited (${code}) before it was ready`);
    }),
  ]);
  return { child, port: message.port, stop: async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.disconnect();
    await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
  } };
}

/**
 * One floor phase: `users` users imported through the bare service, 50 a request, `concurrency` in
 * flight, copied by `copies` bare groups. CPU ms per user by process from the first request until every
 * copy is in; `machineBound` = cores ÷ the CPU per user of all of them.
 */
export async function importFloorPhase({ infra, users = 3_000, copies = 0, concurrency = 4, timeoutMs = 300_000 }) {
  const run = randomBytes(3).toString('hex');
  const topic = `bench.importfloor.${run}`;
  const database = `bench_import_floor_${run}`;
  const appId = `floor${run}`;
  const kafka = quietKafka(infra, 'import-floor');
  await ensureTopics(kafka, [topic], PARTITIONS);
  const mongo = new MongoClient(infra.mongoUrl);
  await mongo.connect();
  const db = mongo.db(database);
  const children = [];
  try {
    const service = await startChild('service', { infra, topic, database });
    children.push(service);
    if (copies > 0) children.push(await startChild('copies', { infra, topic, database, copies }));
    const pids = {
      service: service.child.pid,
      copies: children[1]?.child.pid,
      ferretdb: pidFromFile(`ferretdb-${portOf(infra.mongoUrl)}`),
      kafka: pidFromFile(`kafka-${portOf(infra.kafkaBrokers.split(',')[0])}`),
    };
    const sample = () => Object.fromEntries(Object.entries(pids).filter(([, pid]) => pid !== undefined).map(([name, pid]) => [name, processCpuMs(pid)]));
    const base = Math.floor(Date.now() / 1000) - 100 * 86_400;
    const batches = [];
    for (let i = 0; i < users; i += BATCH) {
      const uids = Array.from({ length: Math.min(BATCH, users - i) }, (_, k) => `user${i + k}`);
      batches.push(Object.fromEntries(uids.map((uid, k) => [uid, { uid, name: `User ${i + k}`, createdAt: base + i + k }])));
    }
    let refused = 0;
    const post = async (batch) => {
      const response = await fetch(`http://127.0.0.1:${service.port}/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', appid: appId },
        body: JSON.stringify({ users: batch }),
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(`import floor: the service answered ${response.status}: ${JSON.stringify(answer)}`);
      refused += Object.values(answer.data).filter((r) => !r.success).length;
    };
    const deadline = Date.now() + timeoutMs;
    const copied = async () => {
      let total = 0;
      for (let n = 0; n < copies; n++) total += await db.collection(`copy${n}`).estimatedDocumentCount();
      return total;
    };
    // A warm-up request (the groups joined, the producer's id, the code compiled), left out of the figures.
    const warmUp = Array.from({ length: WARM_UP }, (_, k) => `warm${k}`);
    await post(Object.fromEntries(warmUp.map((uid, k) => [uid, { uid, name: `Warm ${k}`, createdAt: base }])));
    while ((await copied()) < WARM_UP * copies && Date.now() < deadline) await sleep(20);
    // The shared processes' idle rate (another stack idling on the same broker and store, as in
    // bench/import.mjs): what they would spend anyway over the window is given net of it too.
    const idleFrom = sample();
    const idleStarted = performance.now();
    await sleep(IDLE_SAMPLE_MS);
    const idleTo = sample();
    const idleRate = Object.fromEntries(['ferretdb', 'kafka'].map((name) => [name, (idleTo[name] - idleFrom[name]) / (performance.now() - idleStarted)]));
    const from = sample();
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < batches.length; index = next++) await post(batches[index]);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const answeredS = (performance.now() - started) / 1000;
    // Until every copy is in (N = 0: the answers are the end).
    while ((await copied()) < (users + WARM_UP) * copies && Date.now() < deadline) await sleep(20);
    const seconds = (performance.now() - started) / 1000;
    const until = sample();
    const windowMs = performance.now() - started;
    const cpuPerUser = Object.fromEntries(Object.keys(from).map((name) => [name, (until[name] - from[name]) / users]));
    const netPerUser = Object.fromEntries(Object.entries(cpuPerUser).map(([name, ms]) => [name, ms - ((idleRate[name] ?? 0) * windowMs) / users]));
    const documents = {
      commits: (await db.collection('commits').countDocuments({})) - WARM_UP,
      users: (await db.collection('users').countDocuments({})) - WARM_UP,
      copies: (await copied()) - WARM_UP * copies,
    };
    const sum = (perUser) => Object.values(perUser).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
    const cpuTotal = sum(cpuPerUser);
    const netTotal = sum(netPerUser);
    const ok = refused === 0 && documents.commits === users && documents.users === users && documents.copies === users * copies;
    return {
      users,
      copies,
      refused,
      ok,
      documents,
      usersPerSecond: Math.round(users / answeredS),
      seconds,
      cpuPerUser,
      cpuTotal,
      netTotal,
      machineBound: Math.round((availableParallelism() * 1000) / cpuTotal),
    };
  } finally {
    for (const child of children.reverse()) await child.stop();
    await db.dropDatabase().catch(() => {});
    await mongo.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
}

/** One line for a phase, as bench/import.mjs and the standalone run print it. */
export function formatFloorPhase(r) {
  const by = Object.entries(r.cpuPerUser).map(([name, ms]) => `${name} ${Number.isFinite(ms) ? ms.toFixed(3) : 'n/a'}`).join(', ');
  return (
    `floor, ${r.copies} cop${r.copies === 1 ? 'y' : 'ies'}: ${r.users} users at ${r.usersPerSecond}/s (answered; all copied in ${r.seconds.toFixed(1)} s)` +
    `${r.ok ? '' : ` — WRONG: ${r.refused} refused, ${JSON.stringify(r.documents)}`}; CPU ms per user ${r.cpuTotal.toFixed(3)} (${by}; ` +
    `net of FerretDB's and Kafka's idle rate ${r.netTotal.toFixed(3)}); ` +
    `machine bound ${availableParallelism()} cores ÷ ${r.cpuTotal.toFixed(3)} ms = ${r.machineBound} users/s (${(r.machineBound / 5_000).toFixed(2)} of the goal)`
  );
}

/** Every phase in turn on one infrastructure: `copiesList` e.g. [0, OUR_COPIES]. */
export async function benchImportFloor({ infra, users, copiesList = [0, OUR_COPIES], concurrency }) {
  const phases = [];
  for (const copies of copiesList) {
    const phase = await importFloorPhase({ infra, users, copies, concurrency });
    console.log(formatFloorPhase(phase));
    phases.push(phase);
  }
  return phases;
}

const childRole = process.argv[2] === '--child' ? process.argv[3] : undefined;
if (childRole) {
  const [options] = await once(process, 'message');
  await (childRole === 'service' ? runService(options) : runCopies(options));
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { users: { type: 'string', default: '3000' }, copies: { type: 'string', default: `0,${OUR_COPIES}` }, concurrency: { type: 'string', default: '4' } } });
  const { registerShutdown, startInfrastructure } = await import('@chat/devstack');
  const infra = await startInfrastructure({ parts: ['kafka', 'ferretdb'], freshKafkaData: true });
  const unregister = registerShutdown(() => infra.stop());
  let failed = false;
  try {
    const phases = await benchImportFloor({ infra, users: Number(values.users), copiesList: values.copies.split(',').map(Number), concurrency: Number(values.concurrency) });
    failed = phases.some((p) => !p.ok);
  } finally {
    await infra.stop();
    unregister();
  }
  process.exit(failed ? 1 : 0);
}
