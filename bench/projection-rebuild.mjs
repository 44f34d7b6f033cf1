// Rebuilding a read model from Kafka offset 0: 10^5 realistic MessageSent events over a few hundred
// one-on-one conversations are produced to a fresh topic, then the messages service's own read models
// (MessagesReadModels: the projection runtime over FerretDB) consume it through the batched
// EventConsumer into a fresh database. Prints events/s. `node bench/projection-rebuild.mjs [events]`,
// or import { benchProjectionRebuild } to run it inside another benchmark.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { registerShutdown, startInfrastructure } from '@chat/devstack';
import { MongoClient } from 'mongodb';
import { createLogger } from '../packages/http/dist/index.js';
import { EventConsumer, createKafka, ensureTopics, loadKafkaSecurity } from '../packages/kafka/dist/index.js';
import { MessagesReadModels, docOfSent, messageDocId } from '@chat/messages';

const PARTITIONS = 3;

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

/** The store's own ceiling for this read model: the same documents inserted directly, 100 per command. */
async function rawInsertRate(scratch, appId, count) {
  await new MessagesReadModels(scratch).ensureIndexes();
  const conversation = { id: 'u0000a_user_u0000b', users: ['u0000a', 'u0000b'] };
  const documents = Array.from({ length: count }, (_, index) => {
    const event = messageSent(appId, index + 1, conversation, index + 1);
    return { ...docOfSent(appId, event.data), _id: messageDocId(appId, event.data.id), _positions: { [event.streamId]: event.version }, _rev: 1 };
  });
  const startedAt = Date.now();
  for (let start = 0; start < documents.length; start += 100) {
    await scratch.collection('messages').insertMany(documents.slice(start, start + 100), { ordered: false });
  }
  const rate = Math.round(count / ((Date.now() - startedAt) / 1000));
  await scratch.dropDatabase();
  return rate;
}

/**
 * Produces `events` MessageSent events and times their projection from offset 0.
 * @returns {Promise<{ events: number, target: number, seconds: number, eventsPerSecond: number, documents: number, batches: number, rawInsertsPerSecond: number }>}
 */
export async function benchProjectionRebuild({ events = 100_000, conversations = 300, infra: given, timeoutMs = 300_000 } = {}) {
  const infra = given ?? (await startInfrastructure({ freshKafkaData: true }));
  const unregister = given ? () => {} : registerShutdown(() => infra.stop());
  const logger = createLogger('bench-rebuild', 'warn');
  const kafka = createKafka('bench-rebuild', infra.kafkaBrokers.split(','), logger, loadKafkaSecurity(process.env));
  const run = randomBytes(3).toString('hex');
  const topic = `bench.rebuild.${run}`;
  const appId = `bench${run}`;
  const mongo = new MongoClient(infra.mongoUrl, { maxPoolSize: 50 });
  await mongo.connect();
  const db = mongo.db(`bench_rebuild_${run}`);
  let consumer;
  try {
    await ensureTopics(kafka, [topic], PARTITIONS);
    const producedAt = Date.now();
    await produce(kafka, topic, appId, events, conversations);
    console.log(`produced ${events} MessageSent events over ${conversations} conversations in ${((Date.now() - producedAt) / 1000).toFixed(1)} s`);

    const rawInsertsPerSecond = await rawInsertRate(mongo.db(`bench_raw_${run}`), appId, Math.min(events, 10_000));
    console.log(`raw store baseline: insertMany of the same message documents (100 per command, same indexes) = ${rawInsertsPerSecond} docs/s`);

    const readModels = new MessagesReadModels(db);
    await readModels.ensureIndexes();
    let applied = 0;
    let batches = 0;
    // The clock starts at the first batch: joining the consumer group is not projection work.
    let startedAt = 0;
    consumer = new EventConsumer(kafka, {
      groupId: `bench-rebuild-${run}`,
      topics: [topic],
      logger,
      handler: async (batch) => {
        startedAt ||= Date.now();
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
    const documents = await db.collection('messages').countDocuments({ appId });
    return { events: applied, target: events, seconds, eventsPerSecond: Math.round(applied / seconds), documents, batches, rawInsertsPerSecond };
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
      `${(result.eventsPerSecond / result.rawInsertsPerSecond).toFixed(2)} of the raw insertMany rate (${result.rawInsertsPerSecond} docs/s)`,
  );
  if (result.documents !== result.target) {
    console.error(`expected ${result.target} message documents, found ${result.documents}`);
    process.exitCode = 1;
  }
}
