import { Kafka, logLevel } from 'kafkajs';
import type { LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

export function createKafka(clientId: string, brokers: readonly string[], logger: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 100, retries: 8 },
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...rest } = log;
        if (level <= logLevel.ERROR) logger.error(rest, `kafka: ${message}`);
        else logger.warn(rest, `kafka: ${message}`);
      },
  });
}

/** Creates the topics a service produces to or consumes from; existing topics are left alone. */
export async function ensureTopics(kafka: Kafka, topicNames: readonly string[], numPartitions = 3): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topicNames.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions, replicationFactor: 1 })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}
