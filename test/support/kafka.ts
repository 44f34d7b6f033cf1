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

/** Every message on every topic of this run's Kafka, up to each partition's end when called: keys, values and headers as text. */
export async function everyMessage(timeoutMs = 30_000): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'e2e-scan', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const remaining = new Map<string, bigint>(); // `${topic}/${partition}` → last offset to read
  let topicNames: string[];
  try {
    topicNames = (await admin.listTopics()).filter((topic) => !topic.startsWith('__'));
    for (const topic of topicNames) {
      for (const { partition, low, high } of await admin.fetchTopicOffsets(topic)) {
        if (BigInt(high) > BigInt(low)) remaining.set(`${topic}/${partition}`, BigInt(high) - 1n);
      }
    }
  } finally {
    await admin.disconnect();
  }
  const seen: string[] = [];
  if (remaining.size === 0) return seen;
  const consumer = kafka.consumer({ groupId: `e2e-scan-${randomUUID()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: topicNames, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`topics not read to their end within ${timeoutMs} ms: ${[...remaining.keys()].join(', ')}`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          const headers = Object.entries(headersOf(message.headers)).map(([name, value]) => `${name}=${value}`);
          seen.push([message.key?.toString('utf8') ?? '', message.value?.toString('utf8') ?? '', ...headers].join('\n'));
          const id = `${topic}/${partition}`;
          const last = remaining.get(id);
          if (last !== undefined && BigInt(message.offset) >= last) remaining.delete(id);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
