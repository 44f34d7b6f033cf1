import { describe, expect, it } from 'vitest';
import { BURST_MIN_RECORDS, BURST_SPELL_MS, burstGather } from './burstGather.js';
import { TOLERANT_GATHER } from './consumer.js';
import type { RecordHeaders } from './recordSelector.js';

const record = (type: string | undefined): RecordHeaders => ({ topic: 't', type, appId: 'a', keyId: undefined, timestamp: 0 });
const records = (type: string | undefined, count: number): RecordHeaders[] => Array.from({ length: count }, () => record(type));

// ADR 0117: a group gathers only while bursts of creations come, and never while anything else does.
describe('burstGather', () => {
  it('answers at the first record until a full batch of creations, then gathers for a spell', async () => {
    let clock = 1_000;
    const { select, gather } = burstGather({ burstTypes: ['UserCreated'], now: () => clock });
    expect(gather()).toBeNull();
    expect(await select(records('UserCreated', BURST_MIN_RECORDS - 1))).toEqual(records('UserCreated', BURST_MIN_RECORDS - 1).map(() => true));
    expect(gather()).toBeNull();
    await select(records('UserCreated', BURST_MIN_RECORDS));
    expect(gather()).toBe(TOLERANT_GATHER);
    clock += BURST_SPELL_MS - 1;
    expect(gather()).toBe(TOLERANT_GATHER);
    clock += 1;
    expect(gather()).toBeNull();
  });

  it('stops gathering at any other record, and not before a spell without one', async () => {
    let clock = 1_000;
    const { select, gather } = burstGather({ burstTypes: ['UserCreated'], now: () => clock });
    await select(records('UserCreated', 50));
    expect(gather()).toBe(TOLERANT_GATHER);
    await select([record('MessageSent')]);
    expect(gather()).toBeNull();
    await select(records('UserCreated', 50));
    expect(gather()).toBeNull();
    clock += BURST_SPELL_MS;
    await select(records('UserCreated', 50));
    expect(gather()).toBe(TOLERANT_GATHER);
    // A burst batch with one record of another type (or without a type header) is no burst.
    clock += BURST_SPELL_MS;
    await select([...records('UserCreated', 49), record(undefined)]);
    expect(gather()).toBeNull();
  });

  it('keeps what the wrapped selector keeps', async () => {
    const { select } = burstGather({ burstTypes: ['UserCreated'], select: (rs) => rs.map((r) => r.type === 'UserCreated') });
    expect(await select([record('UserCreated'), record('GroupCreated')])).toEqual([true, false]);
  });
});
