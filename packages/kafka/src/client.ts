import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import type { LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { describeKafkaSecurity } from './security.js';
import type { KafkaSecurity } from './security.js';
import { DEFAULT_TOPIC_SETTINGS, alignTopicConfigs, topicConfigEntries } from './topicSettings.js';
import type { TopicSettings } from './topicSettings.js';

/**
 * The one place a Kafka client of the platform is built. `security` comes from `loadKafkaSecurity`
 * (TLS and SASL from the environment), read by each process's configuration at start.
 */
export function createKafka(clientId: string, brokers: readonly string[], logger: Logger, security: KafkaSecurity): Kafka {
  logger.info({ brokers }, `kafka: ${describeKafkaSecurity(security)}`);
  return new Kafka({
    clientId,
    brokers: [...brokers],
    ...(security.ssl ? { ssl: security.ssl } : {}),
    ...(security.sasl ? { sasl: security.sasl } : {}),
    logLevel: logLevel.WARN,
    // Capped at 2 s (kafkajs' default cap is 30 s): after a broker outage a client must find the broker
    // back within seconds, not wait out a long backoff (the chaos run converged in 25 s with the default).
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...rest } = log;
        if (level <= logLevel.ERROR) logger.error(rest, `kafka: ${message}`);
        else logger.warn(rest, `kafka: ${message}`);
      },
  });
}

/**
 * Creates the topics a service produces to or consumes from, and waits until every partition has a
 * leader. Several services start at once against a fresh broker and race to create the same topics,
 * so any failure (already exists, no leader yet, unknown topic) is retried from the top. `layout` is
 * the process's TopicSettings (KAFKA_PARTITIONS, KAFKA_REPLICATION_FACTOR, KAFKA_TOPIC_RETENTION_MS),
 * or a partition count with the defaults for the rest (tests). Topics that already exist are brought
 * to the settings' retention (ADR 0051).
 */
export async function ensureTopics(
  kafka: Kafka,
  topicNames: readonly string[],
  layout: number | Readonly<TopicSettings> = DEFAULT_TOPIC_SETTINGS,
  attempts = 15,
): Promise<void> {
  const settings = typeof layout === 'number' ? { ...DEFAULT_TOPIC_SETTINGS, partitions: layout } : layout;
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = new Set(await admin.listTopics());
        const missing = topicNames.filter((t) => !existing.has(t));
        if (missing.length > 0) {
          await admin.createTopics({
            topics: missing.map((topic) => ({
              topic,
              numPartitions: settings.partitions,
              replicationFactor: settings.replicationFactor,
              configEntries: topicConfigEntries(settings),
            })),
          });
        }
        const { topics } = await admin.fetchTopicMetadata({ topics: [...topicNames] });
        const ready = topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
        if (!ready) throw new Error(`topics ${topicNames.join(', ')} have no leader yet`);
        await alignTopicConfigs(admin, topicNames, settings);
        return;
      } catch (error) {
        if (attempt >= attempts) throw error;
        await sleep(Math.min(2_000, 100 * attempt));
      }
    }
  } finally {
    await admin.disconnect();
  }
}
