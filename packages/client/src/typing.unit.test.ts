import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay } from './backoff.js';
import { TypingThrottle } from './typing.js';

describe('TypingThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends typing_started at most once per window per receiver, and typing_ended after idle', () => {
    const sent: string[] = [];
    const typing = new TypingThrottle((frame) => sent.push(`${frame.type}:${frame.receiver}`), { throttleMs: 5_000, idleMs: 3_000 });
    const bob = { receiver: 'bob', receiverType: 'user' as const };
    // A keystroke a second for 12 s: starts at 0, 5 and 10 s; no idle gap, so no end until it stops.
    for (let second = 0; second < 12; second += 1) {
      typing.keystroke(bob);
      vi.advanceTimersByTime(1_000);
    }
    expect(sent).toEqual(['typing_started:bob', 'typing_started:bob', 'typing_started:bob']);
    vi.advanceTimersByTime(2_000);
    expect(sent.at(-1)).toBe('typing_ended:bob');
    expect(sent).toHaveLength(4);
  });

  it('ends at once on stop, and only what was started', () => {
    const sent: string[] = [];
    const typing = new TypingThrottle((frame) => sent.push(`${frame.type}:${frame.receiver}`));
    typing.stop({ receiver: 'team', receiverType: 'group' });
    typing.keystroke({ receiver: 'team', receiverType: 'group' });
    typing.stop({ receiver: 'team', receiverType: 'group' });
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual(['typing_started:team', 'typing_ended:team']);
  });
});

describe('backoffDelay', () => {
  it('draws from [0, min(cap, base·2ⁿ)) with full jitter', () => {
    const options = { baseMs: 100, capMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, { ...options, random: () => 0.5 }))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(backoffDelay(3, { ...options, random: () => 0 })).toBe(0);
    for (let i = 0; i < 100; i += 1) expect(backoffDelay(20)).toBeLessThan(30_000);
  });
});
