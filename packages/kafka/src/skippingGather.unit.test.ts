import { describe, expect, it } from 'vitest';
import { PATIENT_GATHER, TOLERANT_GATHER } from './consumer.js';
import type { RecordHeaders } from './recordSelector.js';
import { SKIPPING_SPELL_MS, skippingGather } from './skippingGather.js';

const record = (appId: string): RecordHeaders => ({ topic: 't', appId, timestamp: 0 }) as RecordHeaders;

// ADR 0095: a group that has kept nothing for a spell gathers patiently; a kept record turns it back.
describe('skippingGather', () => {
  it('gathers tolerantly while records are kept and patiently after a spell of skipping only', async () => {
    let clock = 1_000;
    const configured = new Set(['a']);
    const { select, gather } = skippingGather((records) => Promise.resolve(records.map((r) => configured.has(r.appId ?? ''))), { now: () => clock });
    expect(gather()).toBe(TOLERANT_GATHER);
    expect(await select([record('b'), record('c')])).toEqual([false, false]);
    clock += SKIPPING_SPELL_MS - 1;
    expect(gather()).toBe(TOLERANT_GATHER);
    clock += 1;
    expect(gather()).toBe(PATIENT_GATHER);
    expect(await select([record('b'), record('a')])).toEqual([false, true]);
    expect(gather()).toBe(TOLERANT_GATHER);
    clock += SKIPPING_SPELL_MS;
    expect(gather()).toBe(PATIENT_GATHER);
  });

  it('notes what a synchronous selector keeps too', () => {
    let clock = 0;
    const { select, gather } = skippingGather((records) => records.map((r) => r.appId === 'a'), { now: () => clock, spellMs: 10 });
    clock = 10;
    expect(gather()).toBe(PATIENT_GATHER);
    expect(select([record('a')])).toEqual([true]);
    expect(gather()).toBe(TOLERANT_GATHER);
  });
});
