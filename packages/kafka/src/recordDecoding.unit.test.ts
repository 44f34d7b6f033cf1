import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// ADR 0125: the patched kafkajs decodes a record's offset and timestamp in plain numbers and fills its
// headers in place; what it answers is what the Long arithmetic and the spread answered.
const require = createRequire(import.meta.url);
type Decoder = { offset: number; readVarInt(): number };
const DecoderClass = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => Decoder;
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: object) => { buffer: Buffer };
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js') as (
  decoder: Decoder,
  context: object,
) => { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer | Buffer[]> };

function roundTrip(record: object, context: object) {
  const decoder = new DecoderClass(encodeRecord(record).buffer);
  decoder.readVarInt(); // the record's length
  return decodeRecord(decoder, context);
}

describe('record decoding (patched kafkajs)', () => {
  it('adds the deltas to the batch base as decimal text, beyond 2^53 too', () => {
    const record = { offsetDelta: 7, timestampDelta: 1_234, key: Buffer.from('k'), value: Buffer.from('v'), headers: {} };
    expect(roundTrip(record, { firstOffset: '41', firstTimestamp: '1764500000000', timestampType: 0 })).toMatchObject({ offset: '48', timestamp: '1764500001234' });
    // Past Number's exact range the Long path answers, digit for digit.
    expect(roundTrip(record, { firstOffset: '123456789012345678', firstTimestamp: '9007199254740990', timestampType: 0 })).toMatchObject({
      offset: '123456789012345685',
      timestamp: '9007199254742224',
    });
    // A delta of more than 49 bits, and a negative one.
    expect(roundTrip({ ...record, timestampDelta: -(2 ** 52) }, { firstOffset: '0', firstTimestamp: String(2 ** 52 + 5), timestampType: 0 }).timestamp).toBe('5');
    expect(roundTrip({ ...record, timestampDelta: -3 }, { firstOffset: '0', firstTimestamp: '10', timestampType: 0 }).timestamp).toBe('7');
    // Log-append time: the batch's.
    expect(roundTrip(record, { firstOffset: '0', firstTimestamp: '10', timestampType: 1, maxTimestamp: '99' }).timestamp).toBe('99');
  });

  it('keeps every header, a repeated one as a list in order', () => {
    const headers = { type: Buffer.from('MessageSent'), appId: Buffer.from('app'), trace: [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')] };
    const decoded = roundTrip({ offsetDelta: 0, timestampDelta: 0, key: null, value: Buffer.from('{}'), headers }, { firstOffset: '0', firstTimestamp: '0', timestampType: 0 });
    expect(Object.keys(decoded.headers)).toEqual(['type', 'appId', 'trace']);
    expect(String(decoded.headers['type'])).toBe('MessageSent');
    expect((decoded.headers['trace'] as Buffer[]).map(String)).toEqual(['a', 'b', 'c']);
    expect(decoded.key).toBeNull();
  });
});
