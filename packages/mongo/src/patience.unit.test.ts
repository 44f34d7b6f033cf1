import { describe, expect, it } from 'vitest';
import { readWithPatience } from './patience.js';

/** A read that answers null until its `arrivesOn`-th call, then the value (a projection catching up). */
function arriving<T>(value: T, arrivesOn: number) {
  const read = { calls: 0, next: () => Promise.resolve(++read.calls >= arrivesOn ? value : null) };
  return read;
}

describe('readWithPatience', () => {
  it('reads again until the document is there, and answers it', async () => {
    const read = arriving({ uid: 'ann' }, 3);
    expect(await readWithPatience(read.next, { intervalMs: 1 })).toEqual({ uid: 'ann' });
    expect(read.calls).toBe(3);
  });

  it('answers at once, without a second read, when the first read is enough', async () => {
    const read = arriving('here', 1);
    expect(await readWithPatience(read.next)).toBe('here');
    expect(read.calls).toBe(1);
  });

  it('answers the last read as it is once the time is up', async () => {
    const read = arriving('late', 1_000);
    const started = Date.now();
    expect(await readWithPatience(read.next, { timeoutMs: 60, intervalMs: 5 })).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(read.calls).toBeGreaterThan(2);
  });

  it('waits for what `until` names, not merely for a value', async () => {
    let calls = 0;
    const found = await readWithPatience(() => Promise.resolve(new Set(++calls >= 2 ? ['a', 'b'] : ['a'])), {
      intervalMs: 1,
      until: (known) => known.has('b'),
    });
    expect([...found]).toEqual(['a', 'b']);
    expect(calls).toBe(2);
  });
});
