// node bench/floor.mjs (npm run bench:floor) — the floor under issue 23's goals on this machine and
// store: what the parts a send must use cost when nothing of ours runs between them, in one run on
// the devstack's own Kafka and FerretDB runner (started and stopped here; ADR 0055).
//  1. primitives, each as CPU per operation by process (/proc) and rate: the store's raw insertOne/s
//     (store-raw.mjs, the baseline every figure is divided by), insertMany per document and
//     replaceOne {_id} per statement in commands of BENCH_FLOOR_BATCH, findOne {_id} (what an uncached
//     look-up costs), zod validation of a send's body in process; Kafka: a batched produce of event-sized records, then BENCH_FLOOR_GROUPS consumer
//     groups each reading them all (broker and client CPU per record per group); HTTP: a request through
//     a bare node:http proxy (pipe-proxy.mjs) to a bare node:http server (static-upstream.mjs), and the
//     same through express + http-proxy-middleware;
//  2. the minimal pipeline (bench/floor-parts.mjs): client → bare proxy → a bare service (group
//     commit: commits and messages by grouped insertMany, the events produced in one batch, then the
//     answers) → Kafka → one consumer keeping the receiver's conversation (last message + unread counts,
//     a document per conversation inserted once, then replaceOne {_id}, batched per command); features on: a 200-word blocking rule in the service and a
//     consumer making one webhook POST and one push call per message to loopback receivers, recording
//     each delivery (grouped insertMany). Closed loop, BENCH_CLIENTS clients for BENCH_DURATION s per
//     phase, 50 pairs and 2 groups of 20 as bench/cost.mjs: sustained msg/s, CPU ms per message by
//     process from before the load until every group is caught up, write-lock ms per message (the
//     runner's tally, storeTally.mjs), each ÷ raw insertOne of the same run; CPU per message also at
//     the goal's rate (idle polling spread over it) and the ceilings on 2 cores it and the lock imply;
//  3. phases `off-split`, `on-split`: the same with the conversations and deliveries databases on a
//     second runner: one runner for every database against one per database;
//  4. the table goal | floor | ours, ours from bench/cost.mjs's last log (BENCH_OURS_LOG, default
//     /tmp/cost-new.log), named as the source.
// Knobs: BENCH_DURATION (20), BENCH_CLIENTS (50), BENCH_FLOOR_PHASES (off,off-split,on,on-split),
// BENCH_RAW_SECONDS (3), BENCH_FLOOR_BATCH (25), BENCH_FLOOR_RECORDS (20000), BENCH_FLOOR_GROUPS (3),
// BENCH_FLOOR_ROUNDS (1: each phase once; more interleave the phases and add their rounds up),
// BENCH_HTTP_SECONDS (8), BENCH_IDLE_TIMEOUT (60), BENCH_OURS_LOG, FLOOR_SECOND_MONGO_PORT (MONGO_PORT + 50).
// Everything started here stops on exit, failure and Ctrl-C (registerShutdown). Exits 1 on a failure.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { registerShutdown, startInfrastructure } from '@chat/devstack';
import { createKafka, ensureTopics, loadKafkaSecurity } from '../packages/kafka/dist/index.js';
import { terminate } from './childProcesses.mjs';
import { startFakeReceivers } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { connectKafkaProbe } from './kafkaProbe.mjs';
import { blockedTerms } from './moderationRule.mjs';
import { cpuSnapshot, pidFromFile, processCpuMs } from './processCpu.mjs';
import { percentile } from './stack.mjs';
import { localStorePid, measureRate, measureStoreRaw, sampleDocument } from './store-raw.mjs';
import { fileSize, parseDuration, readTally, storeLogOf } from './storeTally.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  seconds: knob('BENCH_DURATION', 20),
  clients: knob('BENCH_CLIENTS', 50),
  phases: (process.env.BENCH_FLOOR_PHASES ?? 'off,off-split,on,on-split').split(',').map((p) => p.trim()).filter(Boolean),
  rawSeconds: knob('BENCH_RAW_SECONDS', 3),
  batch: knob('BENCH_FLOOR_BATCH', 25),
  records: knob('BENCH_FLOOR_RECORDS', 20_000),
  rounds: knob('BENCH_FLOOR_ROUNDS', 1),
  groups: knob('BENCH_FLOOR_GROUPS', 3),
  httpSeconds: knob('BENCH_HTTP_SECONDS', 8),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 60),
  oursLog: process.env.BENCH_OURS_LOG ?? '/tmp/cost-new.log',
  pairs: 50,
  chatGroups: 2,
  groupSize: 20,
  moderationWords: 200,
};
const GOALS = { cpu: { off: 2.5, on: 4 }, sustained: { off: 500, on: 300 }, writeLock: { on: 2 } };
const CORES = 2;
/** Seconds the processes' idle CPU rate is sampled before each load. */
const IDLE_SAMPLE_S = 2;
const PHASES = new Set(['off', 'off-split', 'on', 'on-split']);
for (const phase of CONFIG.phases) if (!PHASES.has(phase)) throw new Error(`BENCH_FLOOR_PHASES: ${phase} is not one of ${[...PHASES].join(', ')}`);

// The runner prints its write-lock tally only when started with it; 1 s keeps the windows' edges sharp.
process.env.FERRETDB_STATS_INTERVAL ??= '1s';
const STATS_INTERVAL_MS = parseDuration(process.env.FERRETDB_STATS_INTERVAL);

const cleanups = [];
let stopping;
const stop = () =>
  (stopping ??= (async () => {
    for (const cleanup of [...cleanups].reverse()) await Promise.resolve().then(cleanup).catch((error) => console.error('floor: a clean-up step failed:', error));
  })());
registerShutdown(stop);
const onStop = (fn) => void cleanups.push(fn);

let exitCode = 0;
try {
  await run();
} catch (error) {
  exitCode = 1;
  console.log(`\nthe floor benchmark failed: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await stop();
}
process.exit(exitCode);

// ------------------------------------------------------------------------------------------------ run

async function run() {
  const infra = await startInfrastructure({ parts: ['kafka', 'ferretdb'], freshKafkaData: true });
  onStop(() => infra.stop());
  if (infra.reused.length > 0) console.log(`note: reused ${infra.reused.join(', ')} (not started here): its CPU may include others' work`);
  const split = CONFIG.phases.some((p) => p.endsWith('-split')) ? await startSecondRunner() : null;
  const kafka = createKafka('floor', infra.kafkaBrokers.split(','), quietLogger(), loadKafkaSecurity(process.env));
  const probe = await connectKafkaProbe(infra.kafkaBrokers);
  onStop(() => probe.close());
  const pids = {
    ferretdb: pidFromFile(`ferretdb-${new URL(infra.mongoUrl).port}`),
    kafka: pidFromFile(`kafka-${infra.kafkaBrokers.split(',')[0].split(':')[1]}`),
    ...(split ? { 'ferretdb-2': split.pid } : {}),
  };
  console.log(
    `issue 23 floor: ${CONFIG.seconds} s per phase with ${CONFIG.clients} clients, phases ${CONFIG.phases.join(', ')}; ` +
      `load average ${loadAverage()}; processes: ${Object.entries(pids).map(([n, p]) => `${n} (${p ?? 'not found'})`).join(', ')}`,
  );

  const primitives = await measurePrimitives({ infra, kafka, pids });
  const results = {};
  // Rounds interleave the phases, so a change in the machine's other load falls on each of them.
  for (let round = 1; round <= CONFIG.rounds; round++) {
    for (const phase of CONFIG.phases) {
      const r = await measurePipeline({ phase, round, infra, split, kafka, probe, pids, primitives });
      results[phase] = results[phase] ? merge(results[phase], r) : r;
    }
  }
  // The baseline again at the end: on a shared machine the first may fall in a busy moment; the
  // better of the two is the one every figure is divided by, as bench/cost.mjs takes the better of its two.
  const again = await measureStoreRaw({ mongoUrl: infra.mongoUrl, sizes: [], concurrency: 8, durationMs: CONFIG.rawSeconds * 1000 });
  console.log(`\nstore raw insertOne again after the pipeline: ${fmt(again.insertOne.perSecond)}/s, store CPU ${fmt(again.insertOne.storeCpuMs, 3)} ms (load average ${loadAverage()})`);
  if (again.insertOne.perSecond > primitives.store.insertOne.perSecond) primitives.store.insertOne = { ...again.insertOne, lockMs: primitives.store.insertOne.lockMs };
  printSummary(primitives, results);
}

/** A second FerretDB runner from the same devstack, on a port of its own (the one-per-database phases). */
async function startSecondRunner() {
  const port = knob('FLOOR_SECOND_MONGO_PORT', knob('MONGO_PORT', 27017) + 50);
  const own = process.env.MONGO_PORT;
  // The devstack reads its ports when called; the second runner is the same part on another port.
  process.env.MONGO_PORT = String(port);
  const starting = startInfrastructure({ parts: ['ferretdb'] });
  if (own === undefined) delete process.env.MONGO_PORT;
  else process.env.MONGO_PORT = own;
  const second = await starting;
  onStop(() => second.stop());
  if (second.reused.length > 0) throw new Error(`port ${port} already has a FerretDB (someone else's?): set FLOOR_SECOND_MONGO_PORT`);
  return { mongoUrl: second.mongoUrl, pid: pidFromFile(`ferretdb-${port}`) };
}

// ------------------------------------------------------------------------------------------ primitives

async function measurePrimitives({ infra, kafka, pids }) {
  console.log(`\n1. Primitives (load average ${loadAverage()})`);
  const storeLog = storeLogOf(infra.mongoUrl);
  const storeLogFrom = fileSize(storeLog);
  const raw = await measureStoreRaw({ mongoUrl: infra.mongoUrl, sizes: [], concurrency: 8, durationMs: CONFIG.rawSeconds * 1000 });
  const store = { insertOne: raw.insertOne, insertMany100: raw.insertMany };
  const client = new MongoClient(infra.mongoUrl, { maxPoolSize: 10 });
  onStop(() => client.close());
  const db = client.db(`floor_primitives_${randomBytes(3).toString('hex')}`);
  onStop(() => db.dropDatabase().catch(() => undefined));
  const storePid = await localStorePid(db);
  const rate = (operation, concurrency) => measureRate(operation, { concurrency, durationMs: CONFIG.rawSeconds * 1000, storePid });
  const B = CONFIG.batch;
  let n = 0;
  // Two commands in flight: a service writing one group while the next gathers, and a consumer's lanes.
  store.insertMany = await rate(async () => {
    const from = (n += B) - B;
    await db.collection('grouped').insertMany(Array.from({ length: B }, (_, i) => sampleDocument(`g-${from + i}`)));
    return B;
  }, 2);
  const ids = Array.from({ length: 2_000 }, (_, i) => `r-${i}`);
  await db.collection('replaced').insertMany(ids.map(sampleDocument));
  let round = 0;
  store.replaceMany = await rate(async () => {
    round += 1;
    const from = (round * B) % (ids.length - B);
    const result = await db.collection('replaced').bulkWrite(
      ids.slice(from, from + B).map((id) => ({ replaceOne: { filter: { _id: id }, replacement: { ...sampleDocument(id), counter: round } } })),
      { ordered: false },
    );
    if (result.matchedCount !== B) throw new Error(`replaceOne batch: matched ${result.matchedCount} of ${B}`);
    return B;
  }, 2);
  store.findOne = await rate(async () => {
    const id = ids[Math.floor(Math.random() * ids.length)];
    if ((await db.collection('replaced').findOne({ _id: id })) === null) throw new Error(`findOne: ${id} not found`);
    return 1;
  }, 8);
  // The runner's tally over the same window: write-lock time per statement of each write primitive.
  await sleep(STATS_INTERVAL_MS * 1.5);
  const tally = readTally(storeLog, storeLogFrom, fileSize(storeLog), 'none');
  const lockPerStatement = (collection, command) => {
    const rows = (tally?.rows ?? []).filter((r) => r.kind === 'write' && r.command === command && r.collection.endsWith(`.${collection}`));
    const statements = rows.reduce((a, r) => a + r.statements, 0);
    return statements > 0 ? rows.reduce((a, r) => a + r.busyMs, 0) / statements : NaN;
  };
  store.insertOne.lockMs = lockPerStatement('singles', 'insert');
  store.insertMany100.lockMs = lockPerStatement('batches', 'insert');
  store.insertMany.lockMs = lockPerStatement('grouped', 'insert');
  store.replaceMany.lockMs = lockPerStatement('replaced', 'update');
  const storeLine = (label, r, unit) =>
    `    ${label.padEnd(52)} ${fmt(r.perSecond).padStart(7)} ${unit.padEnd(7)} store CPU ${fmt(r.storeCpuMs, 3)} ms` +
    (r.lockMs === undefined ? '' : `, write lock ${fmt(r.lockMs, 3)} ms`);
  console.log('  store (FerretDB runner; its CPU per operation from /proc, write-lock time per statement from its tally):');
  console.log(storeLine('insertOne, 8 in flight (the baseline)', store.insertOne, 'docs/s'));
  console.log(storeLine('insertMany(100), 8 in flight, per document', store.insertMany100, 'docs/s'));
  console.log(storeLine(`insertMany(${B}), 2 in flight, per document`, store.insertMany, 'docs/s'));
  console.log(storeLine(`replaceOne {_id} ×${B} in one command, per statement`, store.replaceMany, 'stmts/s'));
  console.log(storeLine('findOne {_id}, 8 in flight', store.findOne, '/s'));

  const validation = measureValidation();
  console.log(`  validation of a send's body by a zod schema of its fields, in process: ${fmt(validation * 1000, 1)} µs per message`);

  const kafkaFigures = await measureKafka({ kafka, brokerPid: pids.kafka });
  const httpFigures = await measureHttp();
  return { store, validation, kafka: kafkaFigures, http: httpFigures };
}

/** CPU ms to validate one send's body (the fields the API takes) with zod, the services' validator. */
function measureValidation() {
  const { z } = createRequire(new URL('../services/messages/package.json', import.meta.url))('zod');
  const schema = z.object({
    receiver: z.string().min(1).max(100),
    receiverType: z.enum(['user', 'group']),
    category: z.enum(['message', 'custom']).optional(),
    type: z.string().min(1).max(100),
    data: z.object({ text: z.string().max(65_536).optional(), metadata: z.record(z.string(), z.unknown()).optional() }).passthrough(),
    tags: z.array(z.string()).max(25).optional(),
  });
  const body = { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: 'sustained 1' } };
  const count = 20_000;
  for (let i = 0; i < 2_000; i++) schema.parse(body);
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) schema.parse(body);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

/** An event like the pipeline's: a MessageSent with a short text, about 600 bytes of JSON. */
function sampleEvent(i) {
  const message = { _id: `app:${i}`, appId: 'floor-app', id: i, conversationId: 'alice_user_bob', sender: 'alice', receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: `sustained ${i}` }, sentAt: 1_764_400_000_000, updatedAt: 1_764_400_000_000 };
  return JSON.stringify({ _id: `app:${i}:sent`, type: 'MessageSent', appId: 'floor-app', stream: message.conversationId, at: message.sentAt, data: message });
}

/** A batched produce (50 records a send, the services' producer settings), then K groups reading it all. */
async function measureKafka({ kafka, brokerPid }) {
  const topic = `floor.primitive.${randomBytes(3).toString('hex')}`;
  await ensureTopics(kafka, [topic], 3);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  onStop(() => producer.disconnect());
  const records = CONFIG.records;
  const value = sampleEvent(0);
  const before = { broker: processCpuMs(brokerPid), client: process.cpuUsage(), at: performance.now() };
  // Two sends in flight, as two group commits overlapping would; each send is one batch of 50.
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < records) {
        const from = next;
        next = Math.min(records, next + 50);
        await producer.send({ topic, acks: -1, messages: Array.from({ length: next - from }, (_, i) => ({ key: `c${(from + i) % 52}`, value, headers: { type: 'MessageSent', appId: 'floor-app' } })) });
      }
    }),
  );
  const produce = cpuSince(before, brokerPid, records);
  const consumeBefore = { broker: processCpuMs(brokerPid), client: process.cpuUsage(), at: performance.now() };
  const consumers = [];
  await Promise.all(
    Array.from({ length: CONFIG.groups }, async (_, g) => {
      const consumer = kafka.consumer({ groupId: `floor-primitive-${g}-${topic}`, maxWaitTimeInMs: 100 });
      consumers.push(consumer);
      onStop(() => consumer.disconnect());
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      let seen = 0;
      await new Promise((resolve, reject) => {
        consumer
          .run({
            partitionsConsumedConcurrently: 3,
            eachBatch: async ({ batch }) => {
              // Each record decoded, as a consumer that uses it must.
              for (const m of batch.messages) JSON.parse(m.value.toString('utf8'));
              seen += batch.messages.length;
              if (seen >= records) resolve();
            },
          })
          .catch(reject);
      });
    }),
  );
  const consume = cpuSince(consumeBefore, brokerPid, records * CONFIG.groups);
  await Promise.all(consumers.map((c) => c.disconnect()));
  await producer.disconnect();
  const eventBytes = Buffer.byteLength(value);
  console.log(`  Kafka (${records} records of ${eventBytes} bytes; CPU per record, /proc for the broker, process.cpuUsage for the client):`);
  console.log(`    produce, batches of 50, idempotent, acks all   ${fmt(produce.perSecond).padStart(7)} rec/s   broker ${fmt(produce.brokerMs, 3)} ms, producer ${fmt(produce.clientMs, 3)} ms`);
  console.log(`    ${CONFIG.groups} groups each reading all, per record per group ${fmt(consume.perSecond).padStart(7)} rec/s   broker ${fmt(consume.brokerMs, 3)} ms, consumer ${fmt(consume.clientMs, 3)} ms (incl. JSON.parse)`);
  return { produce, consume, eventBytes };
}

function cpuSince(before, brokerPid, units) {
  const client = process.cpuUsage(before.client);
  const seconds = (performance.now() - before.at) / 1000;
  return { perSecond: units / seconds, brokerMs: (processCpuMs(brokerPid) - before.broker) / units, clientMs: (client.user + client.system) / 1000 / units };
}

/** POST a message-sized body through a proxy to a bare server: CPU per request of each process. */
async function measureHttp() {
  const answer = join(tmpdir(), `floor-answer-${process.pid}.json`);
  writeFileSync(answer, JSON.stringify({ data: JSON.parse(sampleEvent(1)).data }));
  onStop(() => rmSync(answer, { force: true }));
  const server = await helper('./static-upstream.mjs', [answer]);
  const results = {};
  for (const [name, script, args] of [
    ['bare node:http proxy', './pipe-proxy.mjs', ['0', server.url]],
    ['express + http-proxy-middleware', './floor-parts.mjs', ['express-proxy', server.url]],
  ]) {
    const proxy = await helper(script, args);
    const body = { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: 'hello there' } };
    await closedLoop(proxy.url, () => ({ path: '/v3/messages', headers: { onbehalfof: 'alice' }, body }), 2, { clients: CONFIG.clients });
    const before = cpuSnapshot([{ name: 'proxy', pid: proxy.pid }, { name: 'server', pid: server.pid }]);
    const load = await closedLoop(proxy.url, () => ({ path: '/v3/messages', headers: { onbehalfof: 'alice' }, body }), CONFIG.httpSeconds, { clients: CONFIG.clients });
    const cpu = cpuSnapshot([{ name: 'proxy', pid: proxy.pid }, { name: 'server', pid: server.pid }]).since(before);
    results[name] = { perSecond: load.perSecond, proxyMs: cpu.get('proxy') / load.sent, serverMs: cpu.get('server') / load.sent, errors: load.errors };
    await proxy.stop();
  }
  await server.stop();
  console.log(`  HTTP (POST of a message through a proxy to a bare node:http server, ${CONFIG.clients} clients; CPU per request, /proc):`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`    ${name.padEnd(47)} ${fmt(r.perSecond).padStart(7)} req/s   proxy ${fmt(r.proxyMs, 3)} ms, server ${fmt(r.serverMs, 3)} ms${r.errors ? `, ${r.errors} errors` : ''}`);
  }
  return results;
}

// ------------------------------------------------------------------------------------------- pipeline

/** 50 pairs and 2 groups of 20, sent to round robin, the sender alternating, as bench/traffic.mjs does. */
function targets() {
  const list = [];
  for (let i = 0; i < CONFIG.pairs; i++) list.push({ kind: 'user', a: `pa${i}`, b: `pb${i}` });
  for (let g = 0; g < CONFIG.chatGroups; g++) list.push({ kind: 'group', guid: `g${g}`, members: Array.from({ length: CONFIG.groupSize }, (_, m) => `g${g}m${m}`) });
  return list;
}

function sendOf(list, n, appId) {
  const target = list[n % list.length];
  const round = Math.floor(n / list.length);
  if (target.kind === 'user') {
    const [sender, receiver] = round % 2 === 0 ? [target.a, target.b] : [target.b, target.a];
    return { path: '/v3/messages', headers: { appid: appId, onbehalfof: sender }, body: { receiver, receiverType: 'user', type: 'text', data: { text: `sustained ${n}` } } };
  }
  const sender = target.members[round % target.members.length];
  return { path: '/v3/messages', headers: { appid: appId, onbehalfof: sender }, body: { receiver: target.guid, receiverType: 'group', type: 'text', data: { text: `sustained ${n}` } } };
}

async function measurePipeline({ phase, round, infra, split, kafka, probe, pids, primitives }) {
  const on = phase.startsWith('on');
  const perDatabase = phase.endsWith('-split');
  console.log(
    `\n2. Pipeline, ${phase}${CONFIG.rounds > 1 ? ` (round ${round} of ${CONFIG.rounds})` : ''}: ${on ? 'features on (blocking rule in the service, a webhook POST and a push call per message)' : 'features off'}; ` +
      `${perDatabase ? 'the conversations (and deliveries) database on a second runner' : 'one runner for every database'} (load average ${loadAverage()})`,
  );
  const suffix = `floor${randomBytes(3).toString('hex')}`;
  const topic = `floor.${phase}.${suffix}`;
  await ensureTopics(kafka, [topic], 3);
  const appId = `floor-${phase}`;
  const list = targets();
  const groupMembers = Object.fromEntries(list.filter((t) => t.kind === 'group').map((t) => [t.guid, t.members]));
  const secondUrl = perDatabase ? split.mongoUrl : infra.mongoUrl;
  const parts = [];
  const common = { kafkaBrokers: infra.kafkaBrokers, topic, appId };
  const service = await helper('./floor-parts.mjs', ['service'], {
    ...common,
    mongoUrl: infra.mongoUrl,
    database: `chat_messages_${suffix}`,
    blockedWords: on ? blockedTerms(CONFIG.moderationWords) : [],
  });
  parts.push(['service', service]);
  const proxy = await helper('./pipe-proxy.mjs', ['0', service.url]);
  parts.push(['proxy', proxy]);
  parts.push(['read-model', await helper('./floor-parts.mjs', ['read-model'], { ...common, mongoUrl: secondUrl, database: `chat_conversations_${suffix}`, groupId: `chat_conversations_${suffix}`, groupMembers })]);
  const { hooks, push } = on ? await startFakeReceivers(onStop) : { hooks: null, push: null };
  if (on) {
    parts.push([
      'deliveries',
      await helper('./floor-parts.mjs', ['deliveries'], {
        ...common,
        mongoUrl: secondUrl,
        database: `chat_deliveries_${suffix}`,
        groupId: `chat_deliveries_${suffix}`,
        groupMembers,
        webhookUrl: hooks.url,
        pushUrl: push.url,
        webhookSecret: randomBytes(16).toString('hex'),
      }),
    ]);
  }
  const ownGroups = (groupId) => groupId.endsWith(`_${suffix}`);
  // Warm-up: a message to every conversation, so each document exists and each process is warm.
  const warm = await closedLoop(proxy.url, (n) => sendOf(list, n, appId), 0, { clients: 4, count: list.length * 2 });
  if (warm.errors > 0) throw new Error(`${phase}: ${warm.errors} of the warm-up's sends failed`);
  const warmed = await probe.waitForQuiet(ownGroups, CONFIG.idleTimeoutS * 1000);
  if (!warmed.quiet) throw new Error(`${phase}: the consumers did not catch up with the warm-up`);
  if (on && (hooks.requests() === 0 || push.requests() === 0)) throw new Error(`${phase}: no webhook or push call after the warm-up`);

  const processes = [
    ...parts.map(([name, p]) => ({ name, pid: p.pid })),
    { name: 'ferretdb', pid: pids.ferretdb },
    ...(perDatabase ? [{ name: 'ferretdb-2', pid: pids['ferretdb-2'] }] : []),
    { name: 'kafka', pid: pids.kafka },
  ];
  const logs = [storeLogOf(infra.mongoUrl), ...(perDatabase ? [storeLogOf(split.mongoUrl)] : [])];
  const logFrom = logs.map(fileSize);
  const hookBefore = hooks?.requests() ?? 0;
  const pushBefore = push?.requests() ?? 0;
  const idleFrom = cpuSnapshot(processes);
  await sleep(IDLE_SAMPLE_S * 1000);
  const before = cpuSnapshot(processes);
  const idleRate = before.since(idleFrom);
  const loadBefore = loadAverage();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const load = await closedLoop(proxy.url, (n) => sendOf(list, n, appId), CONFIG.seconds, { clients: CONFIG.clients });
  const idle = await probe.waitForQuiet(ownGroups, CONFIG.idleTimeoutS * 1000);
  const cpu = cpuSnapshot(processes).since(before);
  const client = process.cpuUsage(clientBefore);
  const windowS = (performance.now() - started) / 1000;
  await sleep(STATS_INTERVAL_MS * 1.5);
  const tallies = logs.map((log, i) => readTally(log, logFrom[i], fileSize(log), suffix));
  const r = derive({
    on,
    sent: load.sent,
    loadS: load.sent / load.perSecond,
    errors: load.errors,
    quiet: idle.quiet,
    cpuMs: cpu,
    idleMs: ([...idleRate.values()].reduce((a, b) => a + b, 0) / IDLE_SAMPLE_S) * windowS,
    lockMs: tallies.map((t) => (t ? t.writeBusyMs : NaN)),
    clientMsTotal: (client.user + client.system) / 1000,
    loadBefore,
    rounds: 1,
  });
  const sent = r.sent;
  const raw = primitives.store.insertOne;
  const rawLockMs = 1000 / raw.perSecond;
  console.log(
    `  sustained: ${fmt(r.perSecond)} msg/s, ${r.errors} errors (send p50 ${fmt(load.p50, 1)} ms, p99 ${fmt(load.p99, 1)} ms); ÷ raw insertOne ${fmt(r.perSecond / raw.perSecond, 3)}; ` +
      `caught up ${idle.quiet ? `${fmt(idle.waitedMs / 1000, 1)} s after the load` : `NOT within ${CONFIG.idleTimeoutS} s`}; load average ${loadBefore} → ${loadAverage()}` +
      (on ? `; webhook receiver ${hooks.requests() - hookBefore} and push provider ${push.requests() - pushBefore} requests for ${sent} messages` : ''),
  );
  console.log(
    `  CPU per message (${sent} messages, ${fmt(windowS, 1)} s from before the load until caught up): ${fmt(r.total, 3)} ms in all ` +
      `(÷ raw insertOne's store CPU ${fmt(r.total / raw.storeCpuMs, 1)}); of it idle polling ${fmt(r.idleShare, 3)} ms; ` +
      `the load client and loopback receivers (not counted) ${fmt(r.clientMs, 3)} ms`,
  );
  for (const [name, ms] of [...r.perMessage].sort((a, b) => b[1] - a[1])) console.log(`    ${name.padEnd(12)} ${fmt(ms, 3).padStart(7)} ms  (÷ raw insertOne's store CPU ${fmt(ms / raw.storeCpuMs, 2)})`);
  console.log(
    `  write lock per message (the runner's tally): ${fmt(r.writeLock, 3)} ms in all (÷ a raw insertOne's ${fmt(rawLockMs, 3)} ms: ${fmt(r.writeLock / rawLockMs, 2)})` +
      (perDatabase ? `; runner 1 ${fmt(r.writeLocks[0], 3)} ms, runner 2 ${fmt(r.writeLocks[1], 3)} ms` : ''),
  );
  for (const tally of tallies) {
    for (const row of (tally?.rows ?? []).filter((w) => w.kind === 'write').sort((a, b) => b.busyMs - a.busyMs)) {
      console.log(`    ${row.command.padEnd(14)} ${row.collection.padEnd(28)} ${fmt(row.busyMs / sent, 3).padStart(7)} ms ${fmt(row.statements / sent, 2).padStart(6)} stmts ${fmt(row.commands / sent, 3).padStart(7)} cmds per message`);
    }
  }
  for (const [, p] of parts.reverse()) await p.stop();
  console.log(`  CPU per message less the idle polling ${fmt(r.total - r.idleShare, 3)} ms; at the goal's ${r.goalRate} msg/s (the polling spread over it) ${fmt(r.atGoal, 3)} ms`);
  console.log(
    `  ceiling on ${CORES} cores with nothing else running: ${fmt((CORES * 1000) / r.atGoal)} msg/s if CPU-bound (${fmt((CORES * 1000) / (r.atGoal + r.clientMs))} with this load client on the same cores), ` +
      `${fmt(1000 / Math.max(...r.writeLocks))} msg/s if bound by the busiest write lock`,
  );
  return r;
}

/** A phase's figures per message from its sums (one round's, or several rounds' added by merge). */
function derive(sums) {
  const { on, sent, loadS, cpuMs, idleMs, lockMs, clientMsTotal } = sums;
  const perMessage = new Map([...cpuMs].map(([name, ms]) => [name, ms / sent]));
  const total = [...perMessage.values()].reduce((a, b) => a + b, 0);
  const perSecond = sent / loadS;
  const idleShare = idleMs / sent;
  // Idle polling costs per second, not per message: at the goal's rate its share per message shrinks.
  const goalRate = GOALS.sustained[on ? 'on' : 'off'];
  const writeLocks = lockMs.map((ms) => ms / sent);
  return {
    ...sums,
    perSecond,
    perMessage,
    total,
    idleShare,
    goalRate,
    atGoal: total - idleShare + (idleShare * perSecond) / goalRate,
    writeLocks,
    writeLock: writeLocks.reduce((a, b) => a + b, 0),
    clientMs: clientMsTotal / sent,
  };
}

/** Two rounds of one phase as one: every sum added, so each figure is weighted by its messages. */
function merge(a, b) {
  return derive({
    on: a.on,
    sent: a.sent + b.sent,
    loadS: a.loadS + b.loadS,
    errors: a.errors + b.errors,
    quiet: a.quiet && b.quiet,
    cpuMs: new Map([...a.cpuMs].map(([name, ms]) => [name, ms + (b.cpuMs.get(name) ?? NaN)])),
    idleMs: a.idleMs + b.idleMs,
    lockMs: a.lockMs.map((ms, i) => ms + b.lockMs[i]),
    clientMsTotal: a.clientMsTotal + b.clientMsTotal,
    loadBefore: `${a.loadBefore}, ${b.loadBefore}`,
    rounds: a.rounds + b.rounds,
  });
}

// -------------------------------------------------------------------------------------------- helpers

/**
 * `clients` closed-loop clients POSTing `requestOf(n)` for `seconds` (or until `count` requests):
 * sustained rate, errors, latency percentiles.
 */
async function closedLoop(url, requestOf, seconds, { clients, count = Infinity }) {
  const client = createGatewayClient(url, { timeoutMs: 10_000 });
  const latencies = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const end = seconds > 0 ? started + seconds * 1000 : Infinity;
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end && next < count) {
          const { path, headers, body } = requestOf(next++);
          const t0 = performance.now();
          const answer = await client.request('POST', path, headers, body);
          if (answer.status === 200) latencies.push(performance.now() - t0);
          else errors += 1;
        }
      }),
    );
  } finally {
    client.close();
  }
  latencies.sort((a, b) => a - b);
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / elapsed, sent: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** A helper process (bench/*.mjs) that reports its port or readiness over IPC; stopped with the run. */
async function helper(script, args, config) {
  const child = fork(new URL(script, import.meta.url), args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, ...(config ? { FLOOR_CONFIG: JSON.stringify(config) } : {}) },
  });
  const stopChild = () => terminate(child);
  onStop(stopChild);
  const message = await Promise.race([
    once(child, 'message').then(([m]) => m),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`${script} ${args.join(' ')} exited (${code}) before it was ready`))),
  ]);
  return { pid: child.pid, url: message.port ? `http://127.0.0.1:${message.port}` : undefined, stop: stopChild };
}

/** kafkajs' errors, one line each, but not the coordinator's retried 'not available' of a fresh broker. */
function quietLogger() {
  return {
    error: (detail, message) => {
      if (!/not available/i.test(String(detail?.error))) console.error(`floor kafka: ${message}: ${detail?.error ?? ''}`);
    },
    warn: () => {},
    info: () => {},
  };
}

function loadAverage() {
  return loadavg().map((l) => l.toFixed(1)).join('/');
}

function fmt(value, digits = 0) {
  return Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
}

// -------------------------------------------------------------------------------------------- summary

/** Our stack's figures from bench/cost.mjs's summary table in its last log, when there is one. */
function oursFromLog(path) {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const row = (label) => {
    const line = text.split('\n').find((l) => l.trimStart().startsWith(label));
    if (!line) return [undefined, undefined];
    const cells = line.trim().slice(label.length).trim().split(/\s{2,}/);
    return [cells[0], cells[1]].map((c) => Number(/[\d,.]+/.exec(c ?? '')?.[0].replaceAll(',', '')));
  };
  const [raw] = row('store raw insertOne (baseline)');
  const [sustainedOff, sustainedOn] = row('sustained sends/s, errors');
  const [cpuOff, cpuOn] = row('CPU ms per message, all processes');
  const [lockOff, lockOn] = row('write-lock ms per message');
  const [idleOff, idleOn] = row('of which the idle stack');
  return { raw, sustained: { off: sustainedOff, on: sustainedOn }, cpu: { off: cpuOff, on: cpuOn }, idle: { off: idleOff, on: idleOn }, writeLock: { off: lockOff, on: lockOn } };
}

function printSummary(primitives, results) {
  const raw = primitives.store.insertOne.perSecond;
  const ours = oursFromLog(CONFIG.oursLog);
  /** The floor of a figure: the best either runner layout gave, named by its phase. */
  const best = (features, value, better) => {
    const found = Object.entries(results)
      .filter(([phase]) => phase.startsWith(features))
      .map(([phase, r]) => [phase, value(r)])
      .filter(([, v]) => Number.isFinite(v))
      .sort((a, b) => (better === 'max' ? b[1] - a[1] : a[1] - b[1]))[0];
    return found ? { phase: found[0], value: found[1] } : { phase: '—', value: NaN };
  };
  const cell = (b, digits, base) => (Number.isFinite(b.value) ? `${fmt(b.value, digits)}${base ? ` (÷raw ${fmt(b.value / base, 3)})` : ''} [${b.phase}]` : 'n/a');
  const oursCell = (value, digits, base) => (ours && Number.isFinite(value) ? `${fmt(value, digits)}${base ? ` (÷raw ${fmt(value / base, 3)})` : ''}` : 'n/a');
  const oursAtGoal = (p) => ours && ours.cpu[p] - ours.idle[p] + (ours.idle[p] * ours.sustained[p]) / GOALS.sustained[p];
  const rows = [['store raw insertOne/s (floor: this run; ours: its run)', '', `${fmt(raw)}/s`, ours ? `${fmt(ours.raw)}/s` : 'n/a']];
  for (const p of ['off', 'on']) {
    const atGoal = best(p, (r) => r.atGoal, 'min');
    const lock = best(p, (r) => r.writeLock, 'min');
    const busiest = best(p, (r) => Math.max(...r.writeLocks), 'min');
    const withClient = best(p, (r) => r.atGoal + r.clientMs, 'min');
    rows.push(
      [`features ${p}: sustained msg/s`, `≥${GOALS.sustained[p]}`, cell(best(p, (r) => r.perSecond, 'max'), 0, raw), oursCell(ours?.sustained[p], 0, ours?.raw)],
      [`features ${p}: CPU ms per message as measured`, '', cell(best(p, (r) => r.total, 'min'), 2), oursCell(ours?.cpu[p], 2)],
      [`features ${p}: CPU ms per message at ${GOALS.sustained[p]} msg/s`, `≤${GOALS.cpu[p]}`, cell(atGoal, 2), oursCell(oursAtGoal(p), 2)],
      [`features ${p}: write-lock ms per message, all runners`, p === 'on' ? `≤${GOALS.writeLock.on}` : '', cell(lock, 2), oursCell(ours?.writeLock[p], 2)],
      [`features ${p}: ceiling on ${CORES} idle cores if CPU-bound`, '', `${fmt((CORES * 1000) / atGoal.value)} msg/s (${fmt((CORES * 1000) / withClient.value)} with the load client)`, ours ? `${fmt((CORES * 1000) / oursAtGoal(p))} msg/s` : 'n/a'],
      [`features ${p}: ceiling if bound by the busiest write lock`, '', `${fmt(1000 / busiest.value)} msg/s [${busiest.phase}]`, oursCell(1000 / ours?.writeLock[p], 0)],
    );
  }
  console.log(
    `\n3. Summary: goal | floor (the better runner layout of this run, in brackets) | ours (${ours ? `${CONFIG.oursLog}: bench/cost.mjs's last run, not this one` : `no ${CONFIG.oursLog}`}). ` +
      `CPU "at the goal's rate": the idle polling measured before the load spread over the goal's rate instead of the run's.`,
  );
  const header = ['figure', 'goal', 'floor', 'ours'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) console.log(`  ${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}`);

  for (const features of ['off', 'on']) {
    const single = results[features];
    const perDb = results[`${features}-split`];
    if (!single || !perDb) continue;
    const ferret = (r) => (r.perMessage.get('ferretdb') ?? 0) + (r.perMessage.get('ferretdb-2') ?? 0);
    // Measured rates move with the machine's other load between phases; the ceilings are per message.
    const ceilings = (r) => ({ cpu: (CORES * 1000) / r.atGoal, lock: 1000 / Math.max(...r.writeLocks) });
    const describe = (r) => {
      const c = ceilings(r);
      return `${fmt(r.perSecond)} msg/s measured (${r.rounds} round(s), load average ${r.loadBefore}); CPU ${fmt(r.atGoal, 3)} ms per message at the goal's rate (FerretDB ${fmt(ferret(r), 3)}), busiest write lock ${fmt(Math.max(...r.writeLocks), 3)} ms: ceiling ${fmt(Math.min(c.cpu, c.lock))} msg/s, ${c.cpu <= c.lock ? 'CPU-bound' : 'lock-bound'}`;
    };
    const winner = Math.min(...Object.values(ceilings(single))) >= Math.min(...Object.values(ceilings(perDb))) ? 'one runner' : 'one runner per database';
    console.log(`\n4. Features ${features}, one FerretDB runner for every database against one per database:\n    one runner:   ${describe(single)}\n    per database: ${describe(perDb)}\n    by the ceilings, ${winner} wins here.`);
  }
  const left = primitives.store.findOne.storeCpuMs;
  console.log(
    `\nLeft out of the floor: the API key and the sender's look-ups and the body's validation. Uncached, each look-up is a findOne {_id}: ` +
      `${fmt(left, 3)} ms of store CPU (+${fmt(2 * left, 3)} ms per message for two); cached in the process, about nothing. ` +
      `Validating the body: ${fmt(primitives.validation, 3)} ms.`,
  );
}
