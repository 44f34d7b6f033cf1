import { randomBytes } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, ensureTopics } from './client.js';
import { loadKafkaSecurity } from './security.js';
import { loadTopicSettings, readTopicConfigs } from './topicSettings.js';

// Retention on the real broker (ADR 0051): a topic the platform creates keeps its records for good,
// and one made before (with the broker's 7 days, or another retention) is brought to the setting at
// start without losing the settings an operator gave it.
describe('topic retention on Kafka', () => {
  const run = randomBytes(4).toString('hex');
  let kafka: Kafka;
  let admin: Admin;

  /** The topic's effective settings, as the broker reports them. */
  async function settingsOf(topic: string): Promise<Record<string, { value: string; own: boolean }>> {
    const entries = (await readTopicConfigs(admin, [topic])).get(topic) ?? [];
    return Object.fromEntries(entries.map((e) => [e.configName, { value: e.configValue, own: !e.isDefault }]));
  }

  beforeAll(async () => {
    kafka = createKafka('topic-settings-int-test', (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(','), pino({ level: 'silent' }), loadKafkaSecurity(process.env));
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it('creates topics that keep every record (retention.ms=-1), with the partitions asked for', async () => {
    const topic = `test.retention.created.${run}`;
    await ensureTopics(kafka, [topic], loadTopicSettings({ KAFKA_PARTITIONS: '2' }));
    expect((await settingsOf(topic))['retention.ms']).toEqual({ value: '-1', own: true });
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(topics[0]!.partitions).toHaveLength(2);
  });

  it('brings an existing topic with the broker\'s retention to the setting, keeping its own other settings', async () => {
    const topic = `test.retention.existing.${run}`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '2000000' }] }] });
    expect((await settingsOf(topic))['retention.ms']).toEqual({ value: '604800000', own: false });

    await ensureTopics(kafka, [topic], 1);
    const after = await settingsOf(topic);
    expect(after['retention.ms']).toEqual({ value: '-1', own: true });
    expect(after['max.message.bytes']).toEqual({ value: '2000000', own: true });
  });

  it('applies a finite retention from the environment to new and existing topics alike', async () => {
    const fresh = `test.retention.env.${run}`;
    const old = `test.retention.created.${run}`;
    await ensureTopics(kafka, [fresh, old], loadTopicSettings({ KAFKA_PARTITIONS: '1', KAFKA_TOPIC_RETENTION_MS: '2592000000' }));
    expect((await settingsOf(fresh))['retention.ms']?.value).toBe('2592000000');
    expect((await settingsOf(old))['retention.ms']?.value).toBe('2592000000');
  });
});
