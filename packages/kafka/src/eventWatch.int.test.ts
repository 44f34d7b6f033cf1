import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { Kafka, Producer } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, ensureTopics } from './client.js';
import { loadKafkaSecurity } from './security.js';
import { EventWatch } from './eventWatch.js';

// The per-process watch on the real broker: it starts where the projection group stood (so the
// events that group had not applied yet are seen), then follows every new event.
describe('EventWatch on Kafka', () => {
  const logger = pino({ level: 'silent' });
  const run = randomBytes(4).toString('hex');
  const topic = `test.watch.${run}`;
  const projectionGroup = `test-watch-projection-${run}`;
  let kafka: Kafka;
  let producer: Producer;
  const watches: EventWatch[] = [];
  const created = (uid: string) =>
    JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 }));

  beforeAll(async () => {
    kafka = createKafka('watch-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), logger, loadKafkaSecurity(process.env));
    await ensureTopics(kafka, [topic], 1);
    producer = kafka.producer();
    await producer.connect();
  });
  afterAll(async () => {
    for (const watch of watches) await watch.stop();
    await producer.disconnect();
  });

  it('sees the events after the projection group\'s committed offset, and the new ones', async () => {
    await producer.send({ topic, messages: ['a', 'b', 'c'].map((uid) => ({ key: uid, value: created(uid) })) });
    // The projection group has applied `a` (offset 0) only.
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: projectionGroup, topic, partitions: [{ partition: 0, offset: '1' }] });
    await admin.disconnect();

    const seen: string[] = [];
    const watch = new EventWatch(kafka, {
      purpose: `test-watch-${run}`,
      topics: [topic],
      startFromGroup: projectionGroup,
      logger,
      onEvents: (events: readonly KnownEvent[]) => seen.push(...events.map((event) => event.streamId.split(':')[2] ?? '')),
    });
    watches.push(watch);
    await watch.start();
    await producer.send({ topic, messages: [{ key: 'd', value: created('d') }] });
    const deadline = Date.now() + 20_000;
    while (!seen.includes('d') && Date.now() < deadline) await sleep(50);
    expect([...new Set(seen)]).toEqual(['b', 'c', 'd']);
  });

  it('starts a topic named in startFromGroupOf from that group\'s committed offset instead', async () => {
    const other = `test.watch.other.${run}`;
    const otherGroup = `test-watch-other-${run}`;
    await ensureTopics(kafka, [other], 1);
    await producer.send({ topic: other, messages: ['e', 'f', 'g'].map((uid) => ({ key: uid, value: created(uid) })) });
    // The projection group has read the first topic up to its end and never the other one; the other
    // group has applied `e` and `f` of the other topic.
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: projectionGroup, topic, partitions: [{ partition: 0, offset: '4' }] });
    await admin.setOffsets({ groupId: otherGroup, topic: other, partitions: [{ partition: 0, offset: '2' }] });
    await admin.disconnect();

    const seen: string[] = [];
    const watch = new EventWatch(kafka, {
      purpose: `test-watch-other-${run}`,
      topics: [topic, other],
      startFromGroup: projectionGroup,
      startFromGroupOf: { [other]: otherGroup },
      logger,
      onEvents: (events: readonly KnownEvent[]) => seen.push(...events.map((event) => event.streamId.split(':')[2] ?? '')),
    });
    watches.push(watch);
    await watch.start();
    await producer.send({ topic: other, messages: [{ key: 'h', value: created('h') }] });
    const deadline = Date.now() + 20_000;
    while (!seen.includes('h') && Date.now() < deadline) await sleep(50);
    expect([...new Set(seen)]).toEqual(['g', 'h']);
  });
});
