import { randomBytes } from 'node:crypto';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { Admin, Kafka } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, ensureTopics } from './client.js';
import { KafkaEventPublisher } from './producer.js';
import { loadKafkaSecurity } from './security.js';

// A commit larger than the broker takes in one batch (message.max.bytes, 1 MiB by default) must still
// reach the topic, whole and in order: refused, the outbox would retry it for ever and hold back every
// later event of the service.
describe('KafkaEventPublisher on Kafka', () => {
  const run = randomBytes(4).toString('hex');
  const topic = `test.publisher.${run}`;
  let kafka: Kafka;
  let admin: Admin;
  const publisher = () => new KafkaEventPublisher(kafka, topic);

  beforeAll(async () => {
    kafka = createKafka('publisher-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), pino({ level: 'silent' }), loadKafkaSecurity(process.env));
    await ensureTopics(kafka, [topic], 1);
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it('publishes one stream\'s 1,000 events of 1.5 KB each (1.5 MB, over the broker\'s batch limit) in order', async () => {
    const bio = 'b'.repeat(1_500);
    const events = Array.from({ length: 1_000 }, (_, i) =>
      testEnvelope('UserCreated', 'user:app1:large', i + 1, { uid: `u${i}`, name: bio, role: 'default', tags: [], createdAt: 1 }),
    );
    const sending = publisher();
    await sending.connect();
    try {
      await sending.publish(events);
    } finally {
      await sending.disconnect();
    }
    const [partition] = await admin.fetchTopicOffsets(topic);
    expect(Number(partition!.high)).toBe(1_000);
  });
});
