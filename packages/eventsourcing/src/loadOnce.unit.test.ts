import { describe, expect, it } from 'vitest';
import { LoadOnce } from './loadOnce.js';

describe('LoadOnce', () => {
  it('loads a key once for concurrent callers, again after it is forgotten or after a failed load', async () => {
    const loads: string[] = [];
    let fail = true;
    const cache = new LoadOnce(async (key: string) => {
      loads.push(key);
      if (key === 'flaky' && fail) throw new Error('store down');
      return `${key}@${loads.length}`;
    });
    expect(await Promise.all([cache.get('a'), cache.get('a')])).toEqual(['a@1', 'a@1']);
    cache.forget(['a']);
    expect(await cache.get('a')).toBe('a@2');
    await expect(cache.get('flaky')).rejects.toThrow('store down');
    fail = false;
    expect(await cache.get('flaky')).toBe('flaky@4');
    expect(loads).toEqual(['a', 'a', 'flaky', 'flaky']);
  });

  it('loads a key forgotten with a settle time afresh on every call until it has passed, then keeps it again', async () => {
    let now = 1_000;
    let version = 0;
    const cache = new LoadOnce(async () => `v${++version}`, () => now);
    expect(await cache.get('app')).toBe('v1');
    cache.forget(['app'], 500);
    expect(await cache.get('app')).toBe('v2');
    expect(await cache.get('app')).toBe('v3');
    now = 1_500;
    expect(await cache.get('app')).toBe('v4');
    expect(await cache.get('app')).toBe('v4');
    // A forget without settle time keeps the longer window of an earlier one.
    cache.forget(['app'], 500);
    cache.forget(['app']);
    expect([await cache.get('app'), await cache.get('app')]).toEqual(['v5', 'v6']);
  });
});
