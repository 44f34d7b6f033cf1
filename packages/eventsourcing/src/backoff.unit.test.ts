import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const lowest = () => 0;
  const highest = () => 0.999_999;

  it('doubles the ceiling from the base up to the cap', () => {
    const backoff = { baseMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, backoff, highest))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it('equal jitter (the default) waits at least half the ceiling', () => {
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1_000 }, lowest)).toBe(200);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1_000, jitter: 'equal' }, lowest)).toBe(200);
  });

  it('full jitter may retry at once', () => {
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1_000, jitter: 'full' }, lowest)).toBe(0);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1_000, jitter: 'full' }, highest)).toBe(400);
  });
});
