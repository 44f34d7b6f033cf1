import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.js';

describe('LruCache', () => {
  it('evicts the least recently used entry when full', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('replaces a value without evicting anything', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('a', 10);
    expect(lru.size).toBe(2);
    expect(lru.get('a')).toBe(10);
    expect(lru.get('b')).toBe(2);
  });

  it('deletes and clears', () => {
    const lru = new LruCache<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.delete('a')).toBe(true);
    expect(lru.delete('a')).toBe(false);
    lru.clear();
    expect(lru.size).toBe(0);
  });

  it('never grows past its capacity', () => {
    const lru = new LruCache<number, number>(100);
    for (let i = 0; i < 1000; i++) lru.set(i, i);
    expect(lru.size).toBe(100);
    expect(lru.get(899)).toBeUndefined();
    expect(lru.get(999)).toBe(999);
  });

  it('refuses a useless capacity', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
