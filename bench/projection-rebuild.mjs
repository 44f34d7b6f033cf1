// Rebuilding a read model from Kafka offset 0: 10^5 realistic MessageSent events over a few hundred
// one-on-one conversations are produced to a fresh topic, then the messages service's own read models
// (MessagesReadModels: the projection runtime over FerretDB) consume it through the batched
// EventConsumer into a fresh database, made as `chatctl rebuild` makes them. Prints events/s. `node bench/projection-rebuild.mjs [events]`,
// or import { benchProjectionRebuild } to run it inside another benchmark.
// Beside it, in the same run (ADR 0092): the same documents inserted raw (100 and 1,000 per command
// with the read model's indexes, 1,000 with `_id` only, and 1,000 with `_id` only then the read model's indexes
// built once over the loaded collection: ADR 0102), docs/s and CPU ms per document of this process,
// FerretDB and Kafka; the rebuild's CPU per event by the same processes; and the store's bound, the
// machine's cores ÷ FerretDB's CPU per document (no rebuild through this store can go faster).
// And the floor (ADR 0113): the cheapest rebuild of the same events into the same collection with the
// same indexes — a bare kafkajs consumer (`eachBatch`) of the same topic on the same broker that
// `JSON.parse`s each value, builds the document with the projection's own `docOfSent` and `insertMany`s
// each partition's batch, nothing else (no validation, no runtime, no guards, no offset commits) — its
// events/s and CPU per event by process, and the machine's bound from it: cores ÷ the floor's CPU per
// event of all three processes (no design with this broker, driver and store rebuilds faster here).
// For each of the two (ADR 0147): the store commands they sent (insert and others, from the driver's
// command events), documents per insert, and how busy each process was (CPU ms ÷ wall ms: a FerretDB
// well under one core while the other processes idle says the rebuild waits, not works). Under
// `node --cpu-prof --cpu-prof-dir=<dir>` the two windows go to <dir>/windows.json (CLOCK_MONOTONIC µs,
// per event) for `node bench/cpuProfileSummary.mjs <dir> rebuild|floor`.
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { registerShutdown, startInfrastructure } from '@chat/devstack';
import { MongoClient } from 'mongodb';
import { createLogger } from '../packages/http/dist/index.js';
import * as kafkaPackage from '../packages/kafka/dist/index.js';
import { MessagesReadModels, docOfSent, messageDocId } from '@chat/messages';
import { REBUILD_DOCUMENTS_PER_INSERT } from '../packages/mongo/dist/index.js';
import { runBareConsumer } from './bareConsumer.mjs';
import { pidFromFile, processCpuMs } from './processCpu.mjs';

const { EventConsumer, createKafka, ensureTopics, loadKafkaSecurity } = kafkaPackage;
/** As `chatctl rebuild` runs its consumer (ADR 0147); a root that predates the constant keeps the default. */
const REBUILD_EVENTS_PER_CALL = kafkaPackage.REBUILD_EVENTS_PER_CALL;

const PARTITIONS = 3;

/** The clock V8 stamps its profile samples with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Store commands sent into one database, by name, from the driver's command events. */
function commandTally(client) {
  const byDatabase = new Map();
  client.on('commandStarted', (event) => {
    const tally = byDatabase.get(event.databaseName) ?? {};
    tally[event.commandName] = (tally[event.commandName] ?? 0) + 1;
    byDatabase.set(event.databaseName, tally);
  });
  return (database) => ({ ...(byDatabase.get(database) ?? {}) });
}

/** Cores each process kept busy over a window: CPU ms per event × events ÷ wall ms. */
const busyCores = (cpuPerEvent, events, seconds) => Object.fromEntries(Object.entries(cpuPerEvent).map(([name, ms]) => [name, (ms * events) / (seconds * 1000)]));

const describeRun = (r) =>
  `commands ${JSON.stringify(r.commands)} (${(r.events / (r.commands.insert ?? Number.NaN)).toFixed(0)} documents an insert); ` +
  `busy cores: ${Object.entries(r.busy).map(([name, cores]) => `${name} ${Number.isFinite(cores) ? cores.toFixed(2) : 'n/a'}`).join(', ')}`;

const portOf = (url) => new URL(url.includes('://') ? url : `tcp://${url}`).port;

/**
 * CPU ms used so far by this process (the consumer and the projection), FerretDB and Kafka (NaN for a
 * part /proc cannot see): per event these do not depend on how busy the shared machine is, the rates do.
 */
function cpuSampler(infra) {
  const pids = { ferretdb: pidFromFile(`ferretdb-${portOf(infra.mongoUrl)}`), kafka: pidFromFile(`kafka-${portOf(infra.kafkaBrokers.split(',')[0])}`) };
  const sample = () => {
    const own = process.cpuUsage();
    return { projection: (own.user + own.system) / 1000, ferretdb: processCpuMs(pids.ferretdb), kafka: processCpuMs(pids.kafka) };
  };
  return () => {
    const start = sample();
    /** ms per unit since the sampler started, by process. */
    return (units) => Object.fromEntries(Object.entries(sample()).map(([name, ms]) => [name, (ms - start[name]) / units]));
  };
}

const cpuSum = (cpu) => Object.values(cpu).reduce((sum, ms) => sum + (Number.isFinite(ms) ? ms : 0), 0);

const perUnit = (cpu) => Object.entries(cpu).map(([name, ms]) => `${name} ${Number.isFinite(ms) ? ms.toFixed(3) : 'n/a'}`).join(', ');

/** A send as the messages service publishes it: the message with its entity snapshots. */
function messageSent(appId, sequence, conversation, version) {
  const [sender, receiver] = sequence % 2 === 0 ? conversation.users : [...conversation.users].reverse();
  const entity = (uid) => ({ entity: { uid, name: `User ${uid}`, role: 'default', status: 'offline', createdAt: 1_700_000_000 }, entityType: 'user' });
  return {
    id: randomUUID(),
    type: 'MessageSent',
    schemaVersion: 1,
    appId,
    streamId: `messages:${appId}:${conversation.id}`,
    version,
    occurredAt: new Date(1_700_000_000_000 + sequence).toISOString(),
    actor: { uid: sender, keyId: 'bench', scope: 'fullAccess' },
    correlationId: randomUUID(),
    causationId: null,
    data: {
      id: String(sequence),
      conversationId: conversation.id,
      sender,
      receiver,
      receiverType: 'user',
      category: 'message',
      type: 'text',
      data: { text: `message ${sequence} about nothing in particular`, entities: { sender: entity(sender), receiver: entity(receiver) } },
      sentAt: 1_700_000_000 + Math.floor(sequence / 100),
    },
  };
}

async function produce(kafka, topic, appId, events, conversationCount) {
  const conversations = Array.from({ length: conversationCount }, (_, index) => {
    const users = [`u${String(index).padStart(4, '0')}a`, `u${String(index).padStart(4, '0')}b`];
    return { id: `${users[0]}_user_${users[1]}`, users, version: 0 };
  });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    for (let start = 1; start <= events; start += 1_000) {
      const messages = [];
      for (let sequence = start; sequence < Math.min(start + 1_000, events + 1); sequence++) {
        const conversation = conversations[sequence % conversations.length];
        conversation.version += 1;
        const event = messageSent(appId, sequence, conversation, conversation.version);
        messages.push({ key: event.streamId, value: JSON.stringify(event) });
      }
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * The raw shapes measured beside the rebuild: today's command size, a larger one, without the read model's
 * secondary indexes, and the shadow rebuild's shape (`_id` only, the indexes built at the end, in the time).
 */
const RAW_SHAPES = [
  { perCommand: 100, indexes: true },
  { perCommand: 1_000, indexes: true },
  { perCommand: 1_000, indexes: false },
  { perCommand: 1_000, indexes: true, builtAtEnd: true },
];

const shapeLabel = (r) => `${r.perCommand} per command, ${!r.indexes ? '_id only' : r.builtAtEnd ? "_id only, then the read model's indexes built" : "the read model's indexes"}`;

/**
 * The store's own ceiling for this read model: the same documents inserted directly, `perCommand` per
 * insertMany, one command at a time, with the read model's indexes or only `_id`'s; docs/s and CPU ms
 * per document by process.
 */
async function rawInsertRate(scratch, appId, count, { perCommand, indexes, builtAtEnd = false }, cpu) {
  if (indexes && !builtAtEnd) await new MessagesReadModels(scratch).ensureIndexes();
  else await scratch.createCollection('messages');
  const conversation = { id: 'u0000a_user_u0000b', users: ['u0000a', 'u0000b'] };
  const documents = Array.from({ length: count }, (_, index) => {
    const event = messageSent(appId, index + 1, conversation, index + 1);
    return { ...docOfSent(appId, event.data), _id: messageDocId(appId, event.data.id), _positions: { [event.streamId]: event.version }, _rev: 1 };
  });
  const used = cpu();
  const startedAt = Date.now();
  for (let start = 0; start < documents.length; start += perCommand) {
    await scratch.collection('messages').insertMany(documents.slice(start, start + perCommand), { ordered: false });
  }
  if (builtAtEnd) await new MessagesReadModels(scratch).ensureIndexes();
  const rate = Math.round(count / ((Date.now() - startedAt) / 1000));
  const perDocument = used(count);
  await scratch.dropDatabase();
  return { perCommand, indexes, builtAtEnd, rate, cpu: perDocument };
}

/**
 * The floor: the same topic rebuilt into `db` (the read model's indexes, made first) by a bare kafkajs
 * consumer of a group of its own: each record's value `JSON.parse`d, its document built by `docOfSent` in
 * the stored form the runtime writes (`_id`, `_positions`, `_rev`), one `insertMany` per partition's batch.
 * What any rebuild of this read model must do at least; events/s and CPU ms per event by process.
 */
async function floorRebuild(kafka, topic, db, events, cpu, timeoutMs, commands) {
  await new MessagesReadModels(db).ensureIndexes();
  const messages = db.collection('messages');
  const consumer = kafka.consumer({ groupId: `${topic}.floor`, maxWaitTimeInMs: 100 });
  let applied = 0;
  let startedAt = 0;
  let fromUs = 0;
  let used;
  try {
    await runBareConsumer(consumer, topic, PARTITIONS, async ({ batch }) => {
      if (!startedAt) {
        startedAt = Date.now();
        fromUs = monotonicUs();
        used = cpu();
      }
      const documents = batch.messages.map((message) => {
        const event = JSON.parse(message.value.toString('utf8'));
        const id = messageDocId(event.appId, event.data.id);
        return { ...docOfSent(event.appId, event.data), _id: id, _positions: { [event.streamId.replace(/[.$]/g, '_')]: event.version }, _rev: 1 };
      });
      await messages.insertMany(documents, { ordered: false });
      applied += documents.length;
    });
    const deadline = Date.now() + timeoutMs;
    while (applied < events && Date.now() < deadline) await sleep(20);
    const seconds = startedAt ? (Date.now() - startedAt) / 1000 : Number.NaN;
    const cpuPerEvent = used ? used(applied) : {};
    const window = { fromUs, toUs: monotonicUs(), messages: applied };
    const sent = commands(db.databaseName);
    const documents = await messages.countDocuments({});
    return { events: applied, seconds, eventsPerSecond: Math.round(applied / seconds), documents, cpuPerEvent, commands: sent, busy: busyCores(cpuPerEvent, applied, seconds), window };
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Produces `events` MessageSent events and times their projection from offset 0.
 * CPU is per document (raw) or per event (rebuild), by process: this one (consumer and projection),
 * FerretDB and Kafka. `storeCeiling` is the machine's cores ÷ FerretDB's CPU per document, the most any
 * rebuild could reach on this store.
 * @returns {Promise<{ events: number, target: number, seconds: number, eventsPerSecond: number, documents: number, batches: number,
 *   rawInsertsPerSecond: number, raw: { perCommand: number, indexes: boolean, builtAtEnd: boolean, rate: number, cpu: Record<string, number> }[],
 *   cpuPerEvent: Record<string, number>, storeMsPerDocument: number, storeCeiling: number,
 *   floor?: { events: number, seconds: number, eventsPerSecond: number, documents: number, cpuPerEvent: Record<string, number>, machineBound: number } }>}
 * `floor: false` leaves the floor out (an A/B of consumers that measures it once).
 */
export async function benchProjectionRebuild({ events = 100_000, conversations = 300, infra: given, timeoutMs = 300_000, floor: withFloor = true } = {}) {
  const infra = given ?? (await startInfrastructure({ freshKafkaData: true }));
  const unregister = given ? () => {} : registerShutdown(() => infra.stop());
  const logger = createLogger('bench-rebuild', 'warn');
  const kafka = createKafka('bench-rebuild', infra.kafkaBrokers.split(','), logger, loadKafkaSecurity(process.env));
  const run = randomBytes(3).toString('hex');
  const topic = `bench.rebuild.${run}`;
  const appId = `bench${run}`;
  const mongo = new MongoClient(infra.mongoUrl, { maxPoolSize: 50, monitorCommands: true });
  const commands = commandTally(mongo);
  await mongo.connect();
  const db = mongo.db(`bench_rebuild_${run}`);
  let consumer;
  try {
    await ensureTopics(kafka, [topic], PARTITIONS);
    const producedAt = Date.now();
    await produce(kafka, topic, appId, events, conversations);
    console.log(`produced ${events} MessageSent events over ${conversations} conversations in ${((Date.now() - producedAt) / 1000).toFixed(1)} s`);

    const cpu = cpuSampler(infra);
    const raw = [];
    for (const [index, shape] of RAW_SHAPES.entries()) {
      raw.push(await rawInsertRate(mongo.db(`bench_raw_${run}_${index}`), appId, Math.min(events, 20_000), shape, cpu));
    }
    for (const r of raw) {
      console.log(
        `raw store: insertMany of the same message documents (${shapeLabel(r)}) ` +
          `= ${r.rate} docs/s; CPU ms/doc: ${perUnit(r.cpu)}`,
      );
    }
    const rawInsertsPerSecond = raw[0].rate;
    // The store's bound: however the documents reach it, each costs FerretDB this much CPU, and the machine has this many cores.
    const storeMsPerDocument = Math.min(...raw.filter((r) => r.indexes).map((r) => r.cpu.ferretdb));
    const storeCeiling = Math.round((availableParallelism() * 1000) / storeMsPerDocument);
    console.log(
      `store bound: ${storeMsPerDocument.toFixed(3)} ms of FerretDB CPU per document with the read model's indexes = at most ${storeCeiling} docs/s ` +
        `with all ${availableParallelism()} cores given to FerretDB and none to anything else`,
    );

    // As `chatctl rebuild` makes them (ADR 0114: bigger insert commands).
    const readModels = new MessagesReadModels(db, { documentsPerInsert: REBUILD_DOCUMENTS_PER_INSERT });
    await readModels.ensureIndexes();
    let applied = 0;
    let batches = 0;
    // The clock starts at the first batch: joining the consumer group is not projection work.
    let startedAt = 0;
    let fromUs = 0;
    let used;
    consumer = new EventConsumer(kafka, {
      groupId: `bench-rebuild-${run}`,
      topics: [topic],
      logger,
      ...(REBUILD_EVENTS_PER_CALL !== undefined ? { maxEventsPerCall: REBUILD_EVENTS_PER_CALL } : {}),
      handler: async (batch) => {
        if (!startedAt) {
          startedAt = Date.now();
          fromUs = monotonicUs();
          used = cpu();
        }
        await readModels.apply(batch);
        applied += batch.length;
        batches += 1;
      },
    });
    await consumer.start();
    let lastReport = Date.now();
    // Bounded: a stalled projection still ends the run, and reports how far it got.
    const deadline = Date.now() + timeoutMs;
    while (applied < events && Date.now() < deadline) {
      await sleep(50);
      if (startedAt && Date.now() - lastReport >= 5_000) {
        lastReport = Date.now();
        console.log(`  … ${applied} events applied (${Math.round(applied / ((lastReport - startedAt) / 1000))}/s)`);
      }
    }
    const seconds = startedAt ? (Date.now() - startedAt) / 1000 : Number.NaN;
    const cpuPerEvent = used ? used(applied) : {};
    const window = { fromUs, toUs: monotonicUs(), messages: applied };
    const sent = commands(db.databaseName);
    const busy = busyCores(cpuPerEvent, applied, seconds);
    console.log(`rebuild CPU ms/event: ${perUnit(cpuPerEvent)}; ${describeRun({ events: applied, commands: sent, busy })}`);
    const documents = await db.collection('messages').countDocuments({ appId });
    await consumer.stop();
    consumer = undefined;
    const rebuildBound = Math.round((availableParallelism() * 1000) / cpuSum(cpuPerEvent));
    console.log(`rebuild's machine bound: ${availableParallelism()} cores ÷ ${cpuSum(cpuPerEvent).toFixed(3)} ms of CPU per event = ${rebuildBound} events/s`);
    let floor;
    if (withFloor) {
      const floorDb = mongo.db(`bench_floor_${run}`);
      try {
        const f = await floorRebuild(kafka, topic, floorDb, events, cpu, timeoutMs, commands);
        floor = { ...f, machineBound: Math.round((availableParallelism() * 1000) / cpuSum(f.cpuPerEvent)) };
      } finally {
        await floorDb.dropDatabase().catch(() => {});
      }
      console.log(
        `floor (bare kafkajs eachBatch → JSON.parse → docOfSent → insertMany, same topic, indexes and store): ${floor.events} events in ${floor.seconds.toFixed(1)} s ` +
          `= ${floor.eventsPerSecond} events/s (${floor.documents} documents); CPU ms/event: ${perUnit(floor.cpuPerEvent)}; ` +
          `machine bound ${availableParallelism()} cores ÷ ${cpuSum(floor.cpuPerEvent).toFixed(3)} ms = ${floor.machineBound} events/s (${(floor.machineBound / 20_000).toFixed(2)} of the goal); ` +
          describeRun(floor),
      );
      console.log(`rebuild ÷ floor: ${(applied / seconds / floor.eventsPerSecond).toFixed(2)} of its events/s, ${(cpuSum(floor.cpuPerEvent) / cpuSum(cpuPerEvent)).toFixed(2)} of its CPU per event (floor ÷ rebuild)`);
    }
    const windows = { pids: { [process.pid]: 'bench-rebuild' }, rebuild: window, ...(floor ? { floor: floor.window } : {}) };
    const profileDir = process.execArgv.find((arg) => arg.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
    if (profileDir) writeFileSync(join(profileDir, 'windows.json'), JSON.stringify(windows, null, 2));
    return { events: applied, target: events, seconds, eventsPerSecond: Math.round(applied / seconds), documents, batches, commands: sent, busy, rawInsertsPerSecond, raw, cpuPerEvent, storeMsPerDocument, storeCeiling, rebuildBound, floor, windows };
  } finally {
    await consumer?.stop();
    await db.dropDatabase().catch(() => {});
    await mongo.close();
    if (!given) {
      await infra.stop();
      unregister();
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const events = Number(process.argv[2] ?? 100_000);
  const result = await benchProjectionRebuild({ events });
  console.log(
    `projection rebuild from offset 0: ${result.events} events in ${result.seconds.toFixed(1)} s = ${result.eventsPerSecond} events/s ` +
      `(${result.documents} message documents, ${result.batches} handler calls; goal ≥ 20,000/s); ` +
      `${(result.eventsPerSecond / result.rawInsertsPerSecond).toFixed(2)} of the raw insertMany rate (${result.rawInsertsPerSecond} docs/s); ` +
      `FerretDB CPU per event ${(result.cpuPerEvent.ferretdb / result.storeMsPerDocument).toFixed(2)} × the raw per document; ` +
      `the store's bound ${result.storeCeiling} docs/s is ${(result.storeCeiling / 20_000).toFixed(2)} of the goal`,
  );
  for (const [what, found] of [['rebuild', result.documents], ['floor', result.floor?.documents ?? result.target]]) {
    if (found !== result.target) {
      console.error(`${what}: expected ${result.target} message documents, found ${found}`);
      process.exitCode = 1;
    }
  }
}
