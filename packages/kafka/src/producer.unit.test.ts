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
