import { deadLetterTopic } from '@chat/contracts';
import type { IHeaders, Kafka } from 'kafkajs';
import type { Logger } from 'pino';

/** The headers a dead-lettered message carries beside its own (see `EventConsumer`). */
const DLQ_HEADERS = ['dlq.reason', 'dlq.topic', 'dlq.partition', 'dlq.offset'];

/**
 * Sends what a consumer group parked on its dead-letter topic back to the topics it came from, once
 * the cause is fixed (a new schema version deployed, a projection bug fixed): each message with its key
 * (so to the same partition of its stream) and its own headers. Progress is kept in a consumer group of
 * its own (`<group>.redrive`), so a message is redriven once however often this runs; it stops at the
 * end of the topic as it was when it began. Every consumer group of the original topic sees the message
 * again; they skip what they had applied (per-source versions), and one still unapplicable is parked again.
 */
export async function redriveDeadLetters(kafka: Kafka, groupId: string, logger: Logger): Promise<number> {
  const topic = deadLetterTopic(groupId);
  const redriveGroup = `${groupId}.redrive`;
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map<number, bigint>();
  const reached = new Set<number>();
  try {
    for (const { partition, high } of await admin.fetchTopicOffsets(topic)) ends.set(partition, BigInt(high));
    const [committed] = await admin.fetchOffsets({ groupId: redriveGroup, topics: [topic] });
    for (const { partition, offset } of committed?.partitions ?? []) {
      if (BigInt(offset === '-1' ? 0 : offset) >= (ends.get(partition) ?? 0n)) reached.add(partition);
    }
    for (const [partition, high] of ends) if (high === 0n) reached.add(partition);
  } finally {
    await admin.disconnect();
  }
  if (reached.size >= ends.size) return 0;

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId: redriveGroup, maxWaitTimeInMs: 100 });
  let redriven = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  await producer.connect();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const end = ends.get(partition) ?? 0n;
        if (BigInt(message.offset) >= end) return;
        const headers: IHeaders = { ...message.headers };
        const target = headers['dlq.topic']?.toString();
        for (const name of DLQ_HEADERS) delete headers[name];
        if (target) {
          await producer.send({ topic: target, acks: -1, messages: [{ key: message.key, value: message.value, headers }] });
          redriven += 1;
        } else {
          logger.warn({ offset: message.offset, partition }, 'dead letter without its original topic; left where it is');
        }
        // Committed per message: a redrive that stops half-way goes on from here next time.
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        if (BigInt(message.offset) + 1n >= end) {
          reached.add(partition);
          if (reached.size >= ends.size) finished();
        }
      },
    });
    await done;
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
  logger.info({ groupId, redriven }, 'dead letters redriven');
  return redriven;
}
