import type { EventEnvelope } from '@chat/contracts';
import type { Kafka, ProducerRecord } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaEventPublisher, MAX_PRODUCE_BYTES, partsWithin } from './producer.js';

const record = (id: number, valueBytes: number) => ({ key: `stream-${id}`, value: 'x'.repeat(valueBytes), headers: { 'event-type': 'MessageSent' } });

describe('partsWithin (one produce request stays under the broker limit)', () => {
  it('keeps a small batch in one request', () => {
    const records = [1, 2, 3].map((id) => record(id, 100));
    expect(partsWithin(records, MAX_PRODUCE_BYTES)).toEqual([records]);
  });

  it('splits a large commit into consecutive requests, in order, each within the limit', () => {
    // About what 999 "member added" action messages weigh: ~1.5 MB in one commit.
    const records = Array.from({ length: 999 }, (_, i) => record(i, 1_500));
    const parts = partsWithin(records, MAX_PRODUCE_BYTES);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.flat()).toEqual(records);
    for (const part of parts) {
      const bytes = part.reduce((sum, r) => sum + r.key.length + r.value.length, 0);
      expect(bytes).toBeLessThanOrEqual(MAX_PRODUCE_BYTES);
    }
  });

  it('sends a record larger than the limit alone, never with others', () => {
    const records = [record(1, 10), record(2, MAX_PRODUCE_BYTES + 1), record(3, 10)];
    expect(partsWithin(records, MAX_PRODUCE_BYTES).map((part) => part.map((r) => r.key))).toEqual([['stream-1'], ['stream-2'], ['stream-3']]);
  });
});

describe('KafkaEventPublisher headers', () => {
  it("gives a send its message's category, and other events none (ADR 0086)", async () => {
    const sent: ProducerRecord[] = [];
    const producer = { on: () => undefined, events: {}, send: (record: ProducerRecord) => (sent.push(record), Promise.resolve([])) };
    const publisher = new KafkaEventPublisher({ producer: () => producer } as unknown as Kafka, 'chat.messages.events');
    const envelope = (type: string, data: Record<string, unknown>) =>
      ({ id: type, type, appId: 'app1', streamId: 's', version: 1, schemaVersion: 1, occurredAt: '', correlationId: 'c', actor: { keyId: 'k', scope: 'fullAccess' }, data }) as unknown as EventEnvelope;
    await publisher.publish([envelope('MessageSent', { category: 'call' }), envelope('MessageSent', { category: 'message' }), envelope('MessageEdited', { category: 'call' })]);
    expect(sent.flatMap((r) => r.messages.map((m) => m.headers?.['category']))).toEqual(['call', 'message', undefined]);
    expect(sent[0]!.messages[0]!.headers).toMatchObject({ type: 'MessageSent', appId: 'app1', keyId: 'k', schemaVersion: '1' });
  });
});

describe('KafkaEventPublisher packs imported users (ADR 0111)', () => {
  const imported = (uid: string, metadataBytes = 0) =>
    ({
      id: uid,
      type: 'UserCreated',
      appId: 'app1',
      streamId: `user:app1:${uid}`,
      version: 1,
      schemaVersion: 1,
      occurredAt: '',
      correlationId: 'c',
      causationId: null,
      actor: { keyId: 'k', scope: 'fullAccess' },
      data: { uid, name: uid, role: 'default', tags: [], createdAt: 1, imported: true, ...(metadataBytes > 0 ? { metadata: { blob: 'x'.repeat(metadataBytes) } } : {}) },
    }) as unknown as EventEnvelope;

  /** A publisher whose producer has sent once to a topic of `partitions` partitions. */
  function publisherOf(partitions: number) {
    const sent: ProducerRecord[] = [];
    let partitioner: ((args: unknown) => number) | undefined;
    const producer = { on: () => undefined, events: {}, send: (record: ProducerRecord) => (sent.push(record), Promise.resolve([])) };
    const kafka = {
      producer: (options: { createPartitioner: () => (args: unknown) => number }) => {
        partitioner = options.createPartitioner();
        return producer;
      },
    };
    const publisher = new KafkaEventPublisher(kafka as unknown as Kafka, 'chat.users.events');
    const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [], isr: [] }));
    const partitionOf = (key: string) => partitioner!({ topic: 'chat.users.events', partitionMetadata, message: { key, value: null } });
    partitionOf('any'); // the producer's first send: the partitioner sees the topic's partitions
    return { publisher, sent, partitionOf };
  }

  it('sends nothing packed before its first send, then one record per partition, keyed on it', async () => {
    const users = Array.from({ length: 12 }, (_, i) => imported(`u${i}`));
    const fresh = publisherOf(3);
    await fresh.publisher.publish(users);
    const records = fresh.sent.flatMap((r) => r.messages);
    expect(records.length).toBe(new Set(users.map((u) => fresh.partitionOf(u.streamId))).size);
    for (const record of records) {
      const value = JSON.parse(String(record.value)) as EventEnvelope & { data: { events: EventEnvelope[] } };
      expect(record.headers).toMatchObject({ type: 'UsersImported', packedType: 'UserCreated', appId: 'app1', keyId: 'k' });
      const partitions = new Set(value.data.events.map((e) => fresh.partitionOf(e.streamId)));
      expect([...partitions]).toEqual([fresh.partitionOf(String(record.key))]);
    }
    expect(records.flatMap((r) => (JSON.parse(String(r.value)) as { data: { events: Array<{ id: string }> } }).data.events.map((e) => e.id)).sort()).toEqual(users.map((u) => u.id).sort());
    // A publisher that never sent does not know the partitions: one record each.
    const unprimed: ProducerRecord[] = [];
    const producer = { on: () => undefined, events: {}, send: (record: ProducerRecord) => (unprimed.push(record), Promise.resolve([])) };
    await new KafkaEventPublisher({ producer: () => producer } as unknown as Kafka, 'chat.users.events').publish(users);
    expect(unprimed.flatMap((r) => r.messages).map((m) => m.headers?.['type'])).toEqual(users.map(() => 'UserCreated'));
  });

  it('sends a pack over the bound as its events, one record each', async () => {
    const { publisher, sent } = publisherOf(1);
    const users = [imported('a', 100_000), imported('b', 100_000), imported('c', 100_000)];
    await publisher.publish(users);
    expect(sent.flatMap((r) => r.messages).map((m) => [m.key, m.headers?.['type']])).toEqual(users.map((u) => [u.streamId, 'UserCreated']));
  });
});
