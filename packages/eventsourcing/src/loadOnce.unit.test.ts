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
});
