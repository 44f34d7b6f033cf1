import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from './recentlyUsed.js';

describe('RecentlyUsed', () => {
  it('drops the least recently used entry once it holds one too many', () => {
    const kept = new RecentlyUsed<string, number>(2);
    kept.set('a', 1);
    kept.set('b', 2);
    kept.set('c', 3);
    expect([kept.has('a'), kept.has('b'), kept.has('c'), kept.size]).toEqual([false, true, true, 2]);
  });

  it('counts a get or a set as a use, a peek not', () => {
    const kept = new RecentlyUsed<string, number>(2);
    kept.set('a', 1);
    kept.set('b', 2);
    expect(kept.get('a')).toBe(1);
    kept.set('c', 3); // b is now the least recently used
    expect([kept.peek('a'), kept.peek('b'), kept.peek('c')]).toEqual([1, undefined, 3]);

    expect(kept.peek('a')).toBe(1); // no use: a stays the least recently used
    kept.set('d', 4);
    expect([kept.has('a'), kept.has('c'), kept.has('d')]).toEqual([false, true, true]);

    kept.set('c', 30); // rewriting c makes d the oldest
    kept.set('e', 5);
    expect([kept.get('c'), kept.has('d'), kept.get('e')]).toEqual([30, false, 5]);
  });

  it('keeps undefined values as values, and forgets a deleted entry', () => {
    const kept = new RecentlyUsed<string, undefined | number>(2);
    kept.set('a', undefined);
    kept.set('b', 2);
    expect(kept.get('a')).toBeUndefined();
    kept.set('c', 3); // a was used last by get: b goes
    expect([kept.has('a'), kept.has('b')]).toEqual([true, false]);
    expect(kept.delete('a')).toBe(true);
    expect([kept.has('a'), kept.size]).toEqual([false, 1]);
  });

  it('rewrites an entry without dropping another, never grows past its capacity, and clears', () => {
    const kept = new RecentlyUsed<number, number>(100);
    for (let i = 0; i < 100; i++) kept.set(i, i);
    kept.set(0, 10);
    expect([kept.size, kept.get(0), kept.get(1)]).toEqual([100, 10, 1]);
    for (let i = 100; i < 1000; i++) kept.set(i, i);
    expect([kept.size, kept.has(899), kept.get(999)]).toEqual([100, false, 999]);
    kept.clear();
    expect(kept.size).toBe(0);
  });

  it('refuses a capacity that cannot hold an entry', () => {
    expect(() => new RecentlyUsed(0)).toThrow(RangeError);
    expect(() => new RecentlyUsed(1.5)).toThrow(RangeError);
  });

  it('holds at least what an exact LRU of half its capacity holds, never more than its capacity, through any mix of uses', () => {
    // A seeded walk of gets, peeks, sets, deletes and clears over few keys, some of them hot. The exact model moves every used key
    // to the end of half the capacity; the cache may keep more (an entry used among its newest half keeps its
    // place, ADR 0163), never less, and always the value last written.
    let seed = 23;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const capacity = 50;
    const kept = new RecentlyUsed<string, number>(capacity);
    const exact = new Map<string, number>();
    const written = new Map<string, number>();
    const use = (key: string, value: number) => {
      exact.delete(key);
      exact.set(key, value);
      if (exact.size > capacity / 2) exact.delete(exact.keys().next().value!);
    };
    for (let step = 0; step < 10_000; step++) {
      // A third of the uses go to a few hot keys, which a cache that never moved an entry (a FIFO) would drop.
      const key = random(3) === 0 ? `hot${random(8)}` : `k${random(150)}`;
      const action = random(100);
      if (action < 40) {
        kept.set(key, step);
        written.set(key, step);
        use(key, step);
      } else if (action < 70) {
        const expected = exact.get(key);
        const value = kept.get(key);
        if (expected !== undefined) expect(value).toBe(expected);
        if (value === undefined) continue;
        expect(value).toBe(written.get(key));
        use(key, value); // a hit is a use for the cache: the model counts it too
      } else if (action < 85) {
        const value = kept.peek(key);
        if (exact.has(key)) expect(value).toBe(exact.get(key));
        if (value !== undefined) expect(value).toBe(written.get(key));
      } else if (action < 99) {
        const had = kept.has(key);
        expect(kept.delete(key)).toBe(had);
        expect(kept.has(key)).toBe(false);
        written.delete(key);
        exact.delete(key);
      } else if (random(20) === 0) {
        kept.clear();
        exact.clear();
        written.clear();
      }
      if (step % 97 === 0) for (const [k, v] of exact) expect(kept.peek(k)).toBe(v);
      expect(kept.size).toBeLessThanOrEqual(capacity);
    }
  });

  it('leaves an entry used among its newest half in place, so a hot entry costs the map no hole', () => {
    const kept = new RecentlyUsed<string, number>(4); // the newest half: two placements
    kept.set('a', 1);
    kept.set('b', 2);
    kept.set('c', 3);
    kept.set('b', 20); // placed two placements ago, among the newest half: written in place
    kept.set('d', 4);
    kept.set('e', 5); // one too many: a, the first placed, goes
    expect([kept.has('a'), kept.peek('b')]).toEqual([false, 20]);
    kept.set('f', 6); // b was not moved by its write: it is the oldest now
    expect([kept.has('b'), kept.has('c')]).toEqual([false, true]);
    kept.get('c'); // placed four ago: moved to the end
    kept.set('g', 7);
    expect([kept.has('c'), kept.has('d')]).toEqual([true, false]);
    kept.get('f'); // placed three ago, past the newest half: moved
    kept.set('h', 8);
    kept.set('i', 9); // e, then c go; f stays
    expect([kept.has('e'), kept.has('c'), kept.has('f')]).toEqual([false, false, true]);
  });
});
