import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter, rateLimitHeaders } from './rateLimit.js';
import type { WindowCounterStore } from './rateLimit.js';

/** One shared counter table, as Redis would hold it for several gateway replicas. */
function sharedCounters(): WindowCounterStore & { totals: Map<string, number> } {
  const totals = new Map<string, number>();
  return {
    totals,
    add(entries) {
      return Promise.resolve(entries.map(({ key, amount }) => {
        const total = (totals.get(key) ?? 0) + amount;
        totals.set(key, total);
        return total;
      }));
    },
  };
}

const minuteStart = 1_700_000_040_000; // a multiple of 60 000
const limits = { standard: 5, core: 2 };

describe('rate limiter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits up to the limit per app and class, then refuses with the reset and Retry-After', () => {
    let now = minuteStart + 15_000;
    const limiter = new RateLimiter(limits, undefined, { syncIntervalMs: 100, now: () => now });
    const taken = Array.from({ length: 6 }, () => limiter.take('app1', 'standard'));
    expect(taken.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(taken.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    const refused = taken[5]!;
    expect(rateLimitHeaders(refused)).toEqual({
      'x-rate-limit': '5',
      'x-rate-limit-remaining': '0',
      'x-rate-limit-reset': String((minuteStart + 60_000) / 1000),
      'retry-after': '45',
    });
    expect(rateLimitHeaders(taken[0]!)['retry-after']).toBeUndefined();
    // Other apps and the other class have their own counts; a new window starts afresh.
    expect(limiter.take('app2', 'standard').allowed).toBe(true);
    expect(limiter.take('app1', 'core').allowed).toBe(true);
    now = minuteStart + 60_000;
    expect(limiter.take('app1', 'standard').allowed).toBe(true);
  });

  it('replicas learn each other’s counts at every sync, so the limit holds across them', async () => {
    const now = minuteStart;
    const store = sharedCounters();
    const a = new RateLimiter(limits, store, { syncIntervalMs: 100, now: () => now });
    const b = new RateLimiter(limits, store, { syncIntervalMs: 100, now: () => now });
    expect(b.take('app', 'standard').allowed).toBe(true);
    expect([a.take('app', 'standard'), a.take('app', 'standard'), a.take('app', 'standard')].every((d) => d.allowed)).toBe(true);
    await a.sync();
    await b.sync(); // b adds its one and learns a's three
    expect(b.take('app', 'standard').allowed).toBe(true);
    expect(b.take('app', 'standard').allowed).toBe(false);
    await b.sync();
    await a.sync();
    expect(a.take('app', 'standard').allowed).toBe(false);
    expect([...store.totals.values()]).toEqual([5]);
  });

  it('a failed sync keeps the counts for the next one', async () => {
    const store = sharedCounters();
    let failing = true;
    const flaky: WindowCounterStore = { add: (entries, ttl) => (failing ? Promise.reject(new Error('redis down')) : store.add(entries, ttl)) };
    const errors: unknown[] = [];
    const limiter = new RateLimiter(limits, flaky, { syncIntervalMs: 100, now: () => minuteStart, onSyncError: (e) => errors.push(e) });
    limiter.take('app', 'core');
    await limiter.sync();
    expect(errors).toHaveLength(1);
    failing = false;
    limiter.take('app', 'core');
    await limiter.sync();
    expect([...store.totals.values()]).toEqual([2]);
    expect(limiter.take('app', 'core').allowed).toBe(false);
  });
  it('syncs only while it holds a count of the current window: an idle gateway runs no timer', async () => {
    vi.useFakeTimers();
    let now = minuteStart + 1_000;
    const store = sharedCounters();
    const adds: number[] = [];
    const counted: WindowCounterStore = { add: (entries, ttl) => (adds.push(entries.length), store.add(entries, ttl)) };
    const limiter = new RateLimiter(limits, counted, { syncIntervalMs: 100, now: () => now });
    limiter.start();
    expect(vi.getTimerCount()).toBe(0);
    limiter.take('app', 'standard');
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    // The window's count is added once, then read back at every sync (other replicas' counts arrive).
    expect(adds).toEqual([1, 1, 1]);
    expect([...store.totals.values()]).toEqual([1]);
    // Past the window: the next sync drops it and stops; nothing runs until the next request.
    now = minuteStart + 60_000;
    await vi.advanceTimersByTimeAsync(100);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(adds).toHaveLength(3);
    limiter.take('app', 'standard');
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(adds).toHaveLength(4);
    limiter.stop();
    expect(vi.getTimerCount()).toBe(0);
    limiter.take('app', 'core');
    expect(vi.getTimerCount()).toBe(0);
  });
});
