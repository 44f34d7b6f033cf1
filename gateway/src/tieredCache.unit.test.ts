import { describe, expect, it, vi } from 'vitest';
import { TieredCache } from './tieredCache.js';
import type { RedisCache } from './tieredCache.js';

interface Identity {
  appId: string;
}

function setup(origin: Map<string, Identity>, capacities: { capacity?: number; negativeCapacity?: number } = {}) {
  let now = 0;
  const store = new Map<string, string>();
  const redis: RedisCache & { gets: number } = {
    gets: 0,
    get(key) {
      this.gets++;
      return Promise.resolve(store.get(key) ?? null);
    },
    set(key, value) {
      store.set(key, value);
      return Promise.resolve('OK');
    },
  };
  const load = vi.fn((id: string) => Promise.resolve(origin.get(id) ?? null));
  const errors: string[] = [];
  const cache = new TieredCache<Identity>({
    redis,
    redisKey: (id) => `k:${id}`,
    load,
    parse: (raw) => JSON.parse(raw) as Identity,
    capacity: capacities.capacity ?? 100,
    ...(capacities.negativeCapacity ? { negativeCapacity: capacities.negativeCapacity } : {}),
    maxAgeMs: 1000,
    refreshAfterMs: 500,
    negativeTtlMs: 1000,
    redisTtlSeconds: 300,
    onError: (_e, context) => errors.push(context),
    now: () => now,
  });
  return { cache, redis, store, load, errors, advance: (ms: number) => (now += ms) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('TieredCache', () => {
  it('loads from the origin once, fills Redis, then answers synchronously', async () => {
    const t = setup(new Map([['h1', { appId: 'a1' }]]));
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'a1' });
    expect(t.store.get('k:h1')).toBe('{"appId":"a1"}');
    expect(t.cache.get('h1')).toEqual({ appId: 'a1' });
    expect(t.load).toHaveBeenCalledTimes(1);
  });

  it('shares one lookup between concurrent misses', async () => {
    const t = setup(new Map([['h1', { appId: 'a1' }]]));
    const [a, b] = await Promise.all([t.cache.get('h1'), t.cache.get('h1')]);
    expect(a).toBe(b);
    expect(t.load).toHaveBeenCalledTimes(1);
  });

  it('prefers Redis over the origin', async () => {
    const t = setup(new Map());
    t.store.set('k:h1', '{"appId":"from-redis"}');
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'from-redis' });
    expect(t.load).not.toHaveBeenCalled();
  });

  it('refreshes a busy entry in the background after refreshAfterMs, serving the old value meanwhile', async () => {
    const origin = new Map([['h1', { appId: 'a1' }]]);
    const t = setup(origin);
    await t.cache.get('h1');
    t.advance(600);
    t.store.set('k:h1', '{"appId":"a2"}');
    expect(t.cache.get('h1')).toEqual({ appId: 'a1' });
    await flush();
    expect(t.cache.get('h1')).toEqual({ appId: 'a2' });
  });

  it('never serves an entry older than maxAgeMs', async () => {
    const origin = new Map([['h1', { appId: 'a1' }]]);
    const t = setup(origin);
    await t.cache.get('h1');
    t.store.clear();
    origin.delete('h1');
    t.advance(1000);
    const answer = t.cache.get('h1');
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBeNull();
  });

  it('ages an answer from when it was asked for: a slow look-up does not stretch maxAgeMs', async () => {
    const t = setup(new Map([['h1', { appId: 'a1' }]]));
    let answer: (value: Identity) => void = () => {};
    t.load.mockImplementationOnce(() => new Promise<Identity>((resolve) => (answer = resolve)));
    const first = t.cache.get('h1');
    await flush(); // past the Redis miss, to the origin
    t.advance(700); // the origin takes 700 ms to answer
    answer({ appId: 'a1' });
    await expect(first).resolves.toEqual({ appId: 'a1' });
    t.advance(299);
    expect(t.cache.get('h1')).toEqual({ appId: 'a1' });
    t.advance(1); // 1000 ms after it was asked for, 300 ms after it came back
    expect(t.cache.get('h1')).toBeInstanceOf(Promise);
  });

  it('caches negatives in-process only, for negativeTtlMs', async () => {
    const origin = new Map<string, Identity>();
    const t = setup(origin);
    await expect(t.cache.get('h1')).resolves.toBeNull();
    expect(t.store.size).toBe(0);
    expect(t.cache.get('h1')).toBeNull();
    origin.set('h1', { appId: 'a1' });
    t.advance(1000);
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'a1' });
  });

  it('keeps unknown ids apart: a flood of random ids never evicts a real one, nor reaches Redis as an entry', async () => {
    const t = setup(new Map([['real', { appId: 'a1' }]]), { capacity: 4, negativeCapacity: 8 });
    await t.cache.get('real');
    const loadsBefore = t.load.mock.calls.length;
    for (let i = 0; i < 1_000; i++) await expect(t.cache.get(`random-${i}`)).resolves.toBeNull();
    // Still answered from this process, synchronously, without asking Redis or the origin again.
    const gets = t.redis.gets;
    expect(t.cache.get('real')).toEqual({ appId: 'a1' });
    expect(t.cache.holds('real')).toBe(true);
    expect(t.redis.gets).toBe(gets);
    expect(t.load.mock.calls.length).toBe(loadsBefore + 1_000);
    expect([...t.store.keys()]).toEqual(['k:real']);
    // The negative side is bounded: the oldest random ids were dropped, the latest are still known.
    expect(t.cache.get('random-999')).toBeNull();
    expect(t.cache.get('random-0')).toBeInstanceOf(Promise);
    expect(t.cache.holds('random-999')).toBe(false);
  });

  it('a key that appears replaces its negative entry, and one that disappears replaces its positive one', async () => {
    const origin = new Map<string, Identity>();
    const t = setup(origin);
    await expect(t.cache.get('h1')).resolves.toBeNull();
    origin.set('h1', { appId: 'a1' });
    t.advance(1000);
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'a1' });
    expect(t.cache.get('h1')).toEqual({ appId: 'a1' });
    origin.delete('h1');
    t.store.clear();
    t.advance(1000);
    await expect(t.cache.get('h1')).resolves.toBeNull();
    expect(t.cache.holds('h1')).toBe(false);
    expect(t.cache.get('h1')).toBeNull();
  });

  it('forgets an entry on invalidation', async () => {
    const origin = new Map([['h1', { appId: 'a1' }]]);
    const t = setup(origin);
    await t.cache.get('h1');
    t.store.clear();
    origin.delete('h1');
    t.cache.invalidate('h1');
    await expect(t.cache.get('h1')).resolves.toBeNull();
  });

  it('does not cache an answer that was in flight when the invalidation arrived', async () => {
    const t = setup(new Map([['h1', { appId: 'new' }]]));
    let answer: (value: Identity) => void = () => undefined;
    t.load.mockImplementationOnce(() => new Promise<Identity>((resolve) => (answer = resolve)));
    const inFlight = t.cache.get('h1');
    await flush();
    t.cache.invalidate('h1');
    answer({ appId: 'old' });
    await expect(inFlight).resolves.toEqual({ appId: 'old' });
    expect(t.store.has('k:h1')).toBe(false);
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'new' });
  });

  it('falls back to the origin when Redis fails', async () => {
    const t = setup(new Map([['h1', { appId: 'a1' }]]));
    t.redis.get = () => Promise.reject(new Error('down'));
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'a1' });
    expect(t.errors).toContain('redis get');
  });

  it('propagates an origin failure and caches nothing', async () => {
    const t = setup(new Map());
    t.load.mockRejectedValueOnce(new Error('management down'));
    await expect(t.cache.get('h1')).rejects.toThrow('management down');
    await expect(t.cache.get('h1')).resolves.toBeNull();
  });

  it('discards a Redis entry that does not parse', async () => {
    const t = setup(new Map([['h1', { appId: 'a1' }]]));
    t.store.set('k:h1', 'not json');
    await expect(t.cache.get('h1')).resolves.toEqual({ appId: 'a1' });
  });
});
