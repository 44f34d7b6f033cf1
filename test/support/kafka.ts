import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { IHeaders } from 'kafkajs';
import { inject } from 'vitest';

export interface ReadBack {
  value: Record<string, unknown>;
  headers: Record<string, string>;
  partition: number;
  offset: string;
}

function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[name] = Array.isArray(value) ? String(value[0]) : String(value);
  }
  return out;
}

/** Reads a topic from the beginning with a throw-away group until `match` finds a message. */
export async function readBack(
  topic: string,
  match: (value: Record<string, unknown>) => boolean,
  timeoutMs = 20_000,
): Promise<ReadBack> {
  const kafka = new Kafka({ clientId: 'e2e-reader', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `e2e-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    return await new Promise<ReadBack>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message on ${topic} within ${timeoutMs} ms`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const value = JSON.parse(message.value?.toString('utf8') ?? 'null') as Record<string, unknown>;
          if (value && match(value)) {
            clearTimeout(timer);
            resolve({ value, headers: headersOf(message.headers), partition, offset: message.offset });
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

/** Waits until a consumer group has committed past `offset` on a partition: it has applied that event. */
export async function groupHasConsumed(group: string, topic: string, partition: number, offset: string, timeoutMs = 20_000) {
  const kafka = new Kafka({ clientId: 'e2e-offsets', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const [state] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      const committed = state?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
      if (BigInt(committed) > BigInt(offset)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`group ${group} did not consume ${topic}[${partition}]@${offset} within ${timeoutMs} ms`);
  } finally {
    await admin.disconnect();
  }
}
