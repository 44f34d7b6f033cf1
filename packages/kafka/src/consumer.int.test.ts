import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadLetterTopic } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, ensureTopics } from './client.js';
import { loadKafkaSecurity } from './security.js';
import { EventConsumer } from './consumer.js';
import type { ConsumerGather } from './consumer.js';
import { redriveDeadLetters } from './operatorTools.js';

// The batched consumer on the real broker: what can never be applied is parked on `<group>.dlq`
// with its reason, and a handler that fails like an unreachable store is retried, never parked.
describe('EventConsumer on Kafka', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const topic = `test.consumer.${run}`;
  const groupId = `test-consumer-${run}`;
  let kafka: Kafka;
  let producer: Producer;
  let dlqReader: Consumer | null = null;
  let consumer: EventConsumer | null = null;

  beforeAll(async () => {
    kafka = createKafka('consumer-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), logger, loadKafkaSecurity(process.env));
    await ensureTopics(kafka, [topic, deadLetterTopic(groupId)], 1);
    producer = kafka.producer();
    await producer.connect();
  });
  afterAll(async () => {
    await consumer?.stop();
    await dlqReader?.disconnect();
    await producer.disconnect();
  });

  it('dead-letters an unknown type, an invalid payload and a non-envelope, and retries an outage until it passes', async () => {
    const valid = (uid: string) =>
      JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 }));
    await producer.send({
      topic,
      messages: [
        { key: 'a', value: valid('a') },
        { key: 'x', value: JSON.stringify(testEnvelope('UserTeleported', 'user:app1:x', 1, { uid: 'x' })) },
        { key: 'y', value: JSON.stringify(testEnvelope('UserCreated', 'user:app1:y', 1, { uid: 42 })) },
        { key: 'z', value: 'this is not json' },
        { key: 'b', value: valid('b') },
      ],
    });

    const applied: string[] = [];
    let outagesLeft = 3;
    consumer = new EventConsumer(kafka, {
      groupId,
      topics: [topic],
      logger,
      handler: (events: readonly KnownEvent[]) => {
        if (outagesLeft > 0) {
          outagesLeft -= 1;
          return Promise.reject(new Error('MongoNetworkError: connection refused'));
        }
        applied.push(...events.map((event) => (event.data as { uid: string }).uid));
        return Promise.resolve();
      },
    });
    await consumer.start();

    const parked: Array<{ key: string; reason: string }> = [];
    dlqReader = kafka.consumer({ groupId: `${groupId}-reader` });
    await dlqReader.connect();
    await dlqReader.subscribe({ topic: deadLetterTopic(groupId), fromBeginning: true });
    await dlqReader.run({
      eachMessage: async ({ message }) => {
        parked.push({ key: message.key?.toString() ?? '', reason: message.headers?.['dlq.reason']?.toString() ?? '' });
      },
    });

    const deadline = Date.now() + 25_000;
    while ((applied.length < 2 || parked.length < 3) && Date.now() < deadline) await sleep(100);
    expect(applied).toEqual(['a', 'b']);
    expect(parked.map((entry) => entry.key).sort()).toEqual(['x', 'y', 'z']);
    expect(parked.find((entry) => entry.key === 'x')?.reason).toContain('UserTeleported');
    expect(parked.find((entry) => entry.key === 'z')?.reason).toContain('not an event envelope');
    expect(consumer.counters).toEqual({ deadLettered: 3, retriedFailures: 3, skipped: 0 });
    expect(consumer.health()).toMatchObject({ state: 'running', restarts: 0 });

    // Redriven: back on the original topic, where they are still unapplicable and parked again; a
    // second redrive sends each message once more (the first three are done), never a message twice per run.
    const admin = kafka.admin();
    await admin.connect();
    expect(await redriveDeadLetters(kafka, admin, groupId)).toBe(3);
    const again = Date.now() + 25_000;
    while (parked.length < 6 && Date.now() < again) await sleep(100);
    expect(parked.map((entry) => entry.key).sort()).toEqual(['x', 'x', 'y', 'y', 'z', 'z']);
    expect(applied).toEqual(['a', 'b']);
    expect(await redriveDeadLetters(kafka, admin, groupId)).toBe(3);
    await admin.disconnect();
  });
});

// ADR 0062: what was on the partition when the member joined may have been handed to a member before;
// what is produced after its first fetch cannot have been, until the member joins again.
describe('EventConsumer on Kafka: the repeat flag', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const topic = `test.repeats.${run}`;
  const groupId = `test-repeats-${run}`;
  let kafka: Kafka;
  let producer: Producer;
  const consumers: EventConsumer[] = [];

  beforeAll(async () => {
    kafka = createKafka('repeats-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), logger, loadKafkaSecurity(process.env));
    await ensureTopics(kafka, [topic, deadLetterTopic(groupId)], 1);
    producer = kafka.producer();
    await producer.connect();
  });
  afterAll(async () => {
    for (const consumer of consumers) await consumer.stop();
    await producer.disconnect();
  });

  const send = (...uids: string[]) =>
    producer.send({ topic, messages: uids.map((uid) => ({ key: uid, value: JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 })) })) });

  it('flags the records on the partition at the join as possible repeats and the ones produced later as new; a new member starts flagged again', async () => {
    const handed: Array<{ uid: string; mayRepeat: boolean }> = [];
    const consumerOf = () => {
      const consumer = new EventConsumer(kafka, {
        groupId,
        topics: [topic],
        logger,
        handler: (events, { mayRepeat }) => {
          handed.push(...events.map((event) => ({ uid: (event.data as { uid: string }).uid, mayRepeat })));
          return Promise.resolve();
        },
      });
      consumers.push(consumer);
      return consumer;
    };
    const waitFor = async (count: number) => {
      const deadline = Date.now() + 25_000;
      while (handed.length < count && Date.now() < deadline) await sleep(100);
      expect(handed).toHaveLength(count);
    };
    await send('a', 'b');
    const first = consumerOf();
    await first.start();
    await waitFor(2);
    await send('c');
    await waitFor(3);
    expect(handed).toEqual([
      { uid: 'a', mayRepeat: true },
      { uid: 'b', mayRepeat: true },
      { uid: 'c', mayRepeat: false },
    ]);
    // Its replacement joins after a stop (offsets committed): nothing is handed again, and the first
    // record it is handed was on the partition when it joined.
    await first.stop();
    consumers.splice(consumers.indexOf(first), 1);
    await send('d');
    await consumerOf().start();
    await waitFor(4);
    expect(handed[3]).toEqual({ uid: 'd', mayRepeat: true });
  });
});

// ADR 0083: a gathering group's fetches wait for fuller batches only while records keep coming; the
// first record after a quiet spell is handed over at once.
describe('EventConsumer on Kafka: gathering while busy', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const topic = `test.gather.${run}`;
  const groupId = `test-gather-${run}`;
  const gatherMs = 1_500;
  let kafka: Kafka;
  let producer: Producer;
  let consumer: EventConsumer | null = null;

  beforeAll(async () => {
    kafka = createKafka('gather-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), logger, loadKafkaSecurity(process.env));
    await ensureTopics(kafka, [topic, deadLetterTopic(groupId)], 1);
    producer = kafka.producer();
    await producer.connect();
  });
  afterAll(async () => {
    await consumer?.stop();
    await producer.disconnect();
  });

  const send = (...uids: string[]) =>
    producer.send({ topic, messages: uids.map((uid) => ({ key: uid, value: JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 })) })) });

  it('hands the first record after a quiet spell over at once, and the records right after it in one call at the end of the wait', async () => {
    const calls: Array<{ uids: string[]; at: number }> = [];
    consumer = new EventConsumer(kafka, {
      groupId,
      topics: [topic],
      logger,
      gather: { minBytes: 1024 * 1024, maxWaitMs: gatherMs },
      handler: (events) => {
        calls.push({ uids: events.map((event) => (event.data as { uid: string }).uid), at: Date.now() });
        return Promise.resolve();
      },
    });
    await consumer.start();
    const handed = async (count: number) => {
      const deadline = Date.now() + 25_000;
      while (calls.flatMap((call) => call.uids).length < count && Date.now() < deadline) await sleep(20);
      expect(calls.flatMap((call) => call.uids)).toHaveLength(count);
    };
    while (!consumer.joined) await sleep(50);
    // Quiet: the member's fetches are idle ones (no record yet).
    await sleep(1_500);
    const quietSend = Date.now();
    await send('a');
    await handed(1);
    // At once, not at the end of a gather (the idle fetch answers at the first record).
    expect(calls[0]!.at - quietSend).toBeLessThan(gatherMs / 2);

    // Busy: 'b' comes within the gather's wait of the fetch after 'a' (ADR 0109: records that close
    // together are worth gathering), so the fetch after the one that brought 'b' waits for more; 'c',
    // 'd' and 'e' arrive within it.
    await send('b');
    await handed(2);
    await send('c');
    await sleep(100);
    await send('d');
    await sleep(100);
    await send('e');
    await handed(5);
    expect(calls.slice(1).map((call) => call.uids)).toEqual([['b'], ['c', 'd', 'e']]);

    // Quiet again (the gathering fetch came back empty): the next record is at once again.
    await sleep(gatherMs + 1_500);
    const againSend = Date.now();
    await send('f');
    await handed(6);
    expect(calls[calls.length - 1]!.at - againSend).toBeLessThan(gatherMs / 2);
  });

  it('does not gather records that come further apart than its wait: one fetch each, none that comes back empty (ADR 0109)', async () => {
    await consumer?.stop();
    consumer = null;
    const sparseTopic = `${topic}.sparse`;
    const gatherWaitMs = 300;
    await ensureTopics(kafka, [sparseTopic], 1);
    // The patched kafkajs consumer itself, as EventConsumer configures it, with its own fetch events.
    const member = kafka.consumer({ groupId: `${groupId}-sparse`, maxWaitTimeInMs: 3_000, busyFetch: { minBytes: 1024 * 1024, maxWaitTimeInMs: gatherWaitMs } });
    const fetchesDone: number[] = [];
    member.on(member.events.FETCH, () => fetchesDone.push(Date.now()));
    const calls: Array<{ uids: string[]; at: number }> = [];
    let joined = false;
    member.on(member.events.GROUP_JOIN, () => (joined = true));
    await member.connect();
    await member.subscribe({ topic: sparseTopic, fromBeginning: true });
    await member.run({
      eachBatch: async ({ batch }) => {
        if (batch.messages.length > 0) calls.push({ uids: batch.messages.map((message) => message.key!.toString()), at: Date.now() });
        return Promise.resolve();
      },
    });
    try {
      while (!joined) await sleep(50);
      await sleep(500);
      const sent: number[] = [];
      for (const uid of ['a', 'b', 'c', 'd', 'e']) {
        sent.push(Date.now());
        await producer.send({ topic: sparseTopic, messages: [{ key: uid, value: uid }] });
        await sleep(700);
      }
      const deadline = Date.now() + 25_000;
      while (calls.length < 5 && Date.now() < deadline) await sleep(20);
      expect(calls.map((call) => call.uids)).toEqual([['a'], ['b'], ['c'], ['d'], ['e']]);
      // Every record at once: an idle fetch answers at the first record.
      calls.forEach((call, index) => expect(call.at - sent[index]!).toBeLessThan(gatherWaitMs));
      // One fetch per record. Before ADR 0109 each record's fetch was followed by a gathering one that
      // came back empty after 300 ms: nine fetches for these five records.
      const during = fetchesDone.filter((at) => at >= sent[0]! && at <= calls[4]!.at + 50);
      expect(during.length).toBeLessThanOrEqual(6);
    } finally {
      await member.disconnect();
    }
  });

  it('asks a gather given as a function at each busy fetch: none while it answers null, then the one it answers (ADR 0095)', async () => {
    await consumer?.stop();
    const askedTopic = `${topic}.asked`;
    await ensureTopics(kafka, [askedTopic, deadLetterTopic(`${groupId}-asked`)], 1);
    const sendTo = (uid: string) =>
      producer.send({ topic: askedTopic, messages: [{ key: uid, value: JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 })) }] });
    let asked: ConsumerGather | null = null;
    const calls: string[][] = [];
    consumer = new EventConsumer(kafka, {
      groupId: `${groupId}-asked`,
      topics: [askedTopic],
      logger,
      gather: () => asked,
      handler: (events) => {
        calls.push(events.map((event) => (event.data as { uid: string }).uid));
        return Promise.resolve();
      },
    });
    await consumer.start();
    const handed = async (count: number) => {
      const deadline = Date.now() + 25_000;
      while (calls.flat().length < count && Date.now() < deadline) await sleep(20);
      expect(calls.flat()).toHaveLength(count);
    };
    while (!consumer.joined) await sleep(50);
    await sleep(1_500);
    // No gather asked: records 300 ms apart come one fetch each, busy or not.
    for (const uid of ['a', 'b', 'c']) {
      await sendTo(uid);
      await sleep(300);
    }
    await handed(3);
    expect(calls).toEqual([['a'], ['b'], ['c']]);
    // A gather asked from now on: the fetch after the one that brought 'd' waits for 'e', 'f' and 'g'.
    asked = { minBytes: 1024 * 1024, maxWaitMs: gatherMs };
    await sendTo('d');
    await handed(4);
    for (const uid of ['e', 'f', 'g']) {
      await sendTo(uid);
      await sleep(100);
    }
    await handed(7);
    expect(calls.slice(4)).toEqual([['e', 'f', 'g']]);
  });
});
