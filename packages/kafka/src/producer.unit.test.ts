import { describe, expect, it } from 'vitest';
import { MAX_PRODUCE_BYTES, partsWithin } from './producer.js';

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
