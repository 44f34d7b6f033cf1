import { describe, expect, it } from 'vitest';
import { decideRetry } from './retrySchedule.js';

const policy = { baseMs: 100, maxMs: 1_000, windowMs: 10_000 };

describe('retry decisions', () => {
  it('2xx delivers, 410 is gone, no answer and other statuses retry', () => {
    expect(decideRetry(200, 1, 0, 0, policy, true).outcome).toBe('delivered');
    expect(decideRetry(204, 1, 0, 0, policy, true).outcome).toBe('delivered');
    expect(decideRetry(410, 1, 0, 0, policy, true).outcome).toBe('gone');
    for (const status of [undefined, 301, 404, 429, 500, 503]) expect(decideRetry(status, 1, 0, 0, policy, true).outcome).toBe('retrying');
  });

  it('waits exponentially longer with jitter, never past the cap', () => {
    const waits = [1, 2, 3, 4, 5, 6].map((n) => decideRetry(500, n, 0, 0, policy, true, () => 1).nextAttemptAt);
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    const jittered = decideRetry(500, 3, 0, 0, policy, true, () => 0).nextAttemptAt;
    expect(jittered).toBe(200);
  });

  it('gives up when the next attempt would fall outside the window, or the webhook does not retry', () => {
    expect(decideRetry(500, 20, 0, 9_500, policy, true, () => 1).outcome).toBe('failed');
    expect(decideRetry(500, 20, 0, 8_000, policy, true, () => 1).outcome).toBe('retrying');
    expect(decideRetry(500, 1, 0, 0, policy, false).outcome).toBe('failed');
  });
});
