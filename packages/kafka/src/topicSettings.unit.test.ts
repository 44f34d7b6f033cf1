import { describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_SETTINGS, RETAIN_FOREVER, loadTopicSettings, topicConfigEntries } from './topicSettings.js';

describe('topic settings', () => {
  it('keeps topics for good unless told otherwise, with three partitions on one replica', () => {
    expect(loadTopicSettings({})).toEqual({ partitions: 3, replicationFactor: 1, retentionMs: RETAIN_FOREVER });
    expect(loadTopicSettings({ KAFKA_TOPIC_RETENTION_MS: '' })).toEqual(DEFAULT_TOPIC_SETTINGS);
    expect(topicConfigEntries(DEFAULT_TOPIC_SETTINGS)).toEqual([{ name: 'retention.ms', value: '-1' }]);
  });

  it('reads partitions, replication and retention from the environment', () => {
    const settings = loadTopicSettings({ KAFKA_PARTITIONS: '6', KAFKA_REPLICATION_FACTOR: '3', KAFKA_TOPIC_RETENTION_MS: '2592000000' });
    expect(settings).toEqual({ partitions: 6, replicationFactor: 3, retentionMs: 2_592_000_000 });
    expect(topicConfigEntries(settings)).toEqual([{ name: 'retention.ms', value: '2592000000' }]);
  });

  it('refuses a retention Kafka does not know, naming the variable', () => {
    for (const value of ['0', '-2', '1.5', 'forever']) {
      expect(() => loadTopicSettings({ KAFKA_TOPIC_RETENTION_MS: value }), value).toThrow(/KAFKA_TOPIC_RETENTION_MS/);
    }
    expect(() => loadTopicSettings({ KAFKA_PARTITIONS: '0' })).toThrow(/KAFKA_PARTITIONS/);
  });
});
