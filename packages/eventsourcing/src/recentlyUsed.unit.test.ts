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

  it('evicts in the order of a model that searches for the least recently used entry, through any mix of uses', () => {
    // A seeded walk of gets, peeks, sets, deletes and clears over few keys: the kept iterator must
    // always find what a fresh look at the map's order finds.
    let seed = 23;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const capacity = 50;
    const kept = new RecentlyUsed<string, number>(capacity);
    const model = new Map<string, number>();
    const use = (key: string, value: number) => {
      model.delete(key);
      model.set(key, value);
    };
    for (let step = 0; step < 10_000; step++) {
      const key = `k${random(120)}`;
      const action = random(100);
      if (action < 40) {
        kept.set(key, step);
        use(key, step);
        if (model.size > capacity) model.delete([...model.keys()][0]!);
      } else if (action < 70) {
        const known = model.get(key);
        if (known !== undefined) use(key, known);
        expect(kept.get(key)).toBe(known);
      } else if (action < 85) {
        expect(kept.peek(key)).toBe(model.get(key));
      } else if (action < 99) {
        expect(kept.delete(key)).toBe(model.delete(key));
      } else if (random(20) === 0) {
        kept.clear();
        model.clear();
      }
      if (step % 97 === 0) for (const [k, v] of model) expect(kept.peek(k)).toBe(v);
      expect(kept.size).toBe(model.size);
    }
  });
});
