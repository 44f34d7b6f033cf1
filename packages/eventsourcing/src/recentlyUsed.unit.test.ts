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
});
