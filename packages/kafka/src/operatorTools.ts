import { randomBytes } from 'node:crypto';
import { deadLetterTopic, eventHeaderNames } from '@chat/contracts';
import type { Admin, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import { LagReader } from './lag.js';
import type { PartitionLag } from './lag.js';

/**
 * What an operator does to the log, shared by the `chatctl` CLI and the console's management
 * endpoints: read a topic as it stands, filter its events, list a group's dead letters and send them
 * back once, measure every group's lag.
 */

export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? String(value[0]) : String(value);
}

/** Reads a topic from its start to its end as of now (a snapshot), calling `each` per message in partition order. */
export async function readTopicSnapshot(
  kafka: Kafka,
  admin: Admin,
  topic: string,
  each: (message: KafkaMessage, partition: number) => void | Promise<void>,
): Promise<void> {
  const ends = await admin.fetchTopicOffsets(topic);
  const remaining = new Map(ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
  if (remaining.size === 0) return;
  const groupId = `chatctl.read.${randomBytes(6).toString('hex')}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const end = remaining.get(partition);
            if (end === undefined || Number(message.offset) >= end) return;
            await each(message, partition);
            if (Number(message.offset) + 1 >= end) remaining.delete(partition);
            if (remaining.size === 0) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([groupId]).catch(() => undefined);
  }
}

export interface TailedEvent {
  partition: number;
  offset: string;
  event: unknown;
}

/** The events of a topic whose app and type headers match (either filter may be left out), oldest first. */
export async function eventsOf(kafka: Kafka, admin: Admin, topic: string, filter: { appId?: string; type?: string }): Promise<TailedEvent[]> {
  const found: TailedEvent[] = [];
  await readTopicSnapshot(kafka, admin, topic, (message, partition) => {
    if (filter.appId !== undefined && headerText(message.headers, eventHeaderNames.appId) !== filter.appId) return;
    if (filter.type !== undefined && headerText(message.headers, eventHeaderNames.type) !== filter.type) return;
    let event: unknown;
    try {
      event = JSON.parse(message.value?.toString('utf8') ?? 'null');
    } catch {
      event = { unparsable: message.value?.toString('utf8') ?? null };
    }
    found.push({ partition, offset: message.offset, event });
  });
  return found;
}

export interface DeadLetter {
  partition: number;
  offset: string;
  /** Already sent back by an earlier redrive. */
  redriven: boolean;
  from: { topic: string; partition: number; offset: string };
  reason: string;
  message: KafkaMessage;
}

/** Where redrives are remembered: this group's committed offsets on the dead-letter topic. */
const redriveGroupOf = (group: string) => `chatctl.redrive.${group}`;

export async function deadLettersOf(kafka: Kafka, admin: Admin, group: string): Promise<DeadLetter[]> {
  const topic = deadLetterTopic(group);
  if (!(await admin.listTopics()).includes(topic)) return [];
  const [state] = await admin.fetchOffsets({ groupId: redriveGroupOf(group), topics: [topic] });
  const done = new Map((state?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  const letters: DeadLetter[] = [];
  await readTopicSnapshot(kafka, admin, topic, (message, partition) => {
    letters.push({
      partition,
      offset: message.offset,
      redriven: Number(message.offset) < (done.get(partition) ?? -1),
      from: {
        topic: headerText(message.headers, 'dlq.topic') ?? '',
        partition: Number(headerText(message.headers, 'dlq.partition') ?? -1),
        offset: headerText(message.headers, 'dlq.offset') ?? '',
      },
      reason: headerText(message.headers, 'dlq.reason') ?? '',
      message,
    });
  });
  return letters;
}

/**
 * Sends every dead letter of `group` not yet redriven back to the topic it came from (same key,
 * value and headers, without the `dlq.*` ones), then remembers how far it got. Returns how many.
 */
export async function redriveDeadLetters(kafka: Kafka, admin: Admin, group: string, onProgress?: (done: number, total: number) => void): Promise<number> {
  const letters = await deadLettersOf(kafka, admin, group);
  const pending = letters.filter((letter) => !letter.redriven && letter.from.topic !== '');
  if (pending.length > 0) {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      let sent = 0;
      for (const { message, from } of pending) {
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).filter(([name]) => !name.startsWith('dlq.')));
        await producer.send({ topic: from.topic, messages: [{ key: message.key, value: message.value, headers }] });
        onProgress?.(++sent, pending.length);
      }
    } finally {
      await producer.disconnect();
    }
  }
  const next = new Map<number, number>();
  for (const { partition, offset } of letters) next.set(partition, Math.max(next.get(partition) ?? 0, Number(offset) + 1));
  if (next.size > 0) {
    await admin.setOffsets({
      groupId: redriveGroupOf(group),
      topic: deadLetterTopic(group),
      partitions: [...next].map(([partition, offset]) => ({ partition, offset: String(offset) })),
    });
  }
  return pending.length;
}

/** Every consumer group's lag per topic and partition (operator tools' own groups left out). */
export async function lagOfAllGroups(kafka: Kafka, admin: Admin, only?: string): Promise<PartitionLag[]> {
  const reader = new LagReader(kafka);
  try {
    const groups = only !== undefined ? [only] : (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => !id.startsWith('chatctl.')).sort();
    const rows: PartitionLag[] = [];
    for (const groupId of groups) {
      const groupTopics = (await admin.fetchOffsets({ groupId })).map((entry) => entry.topic);
      if (groupTopics.length > 0) rows.push(...(await reader.measure(groupId, groupTopics)));
    }
    return rows;
  } finally {
    await reader.close();
  }
}
