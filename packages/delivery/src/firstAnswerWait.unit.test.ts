import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { receiverOf } from './dispatcher.js';
import { FirstAnswerWait } from './firstAnswerWait.js';

/** A first attempt whose answer the test gives. */
function attempt(receiver: string) {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  return { receiver, answered, answer };
}

/** Whether `promise` has settled after the timers moved `ms` on. */
async function settledAfter(promise: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe('FirstAnswerWait', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ends when every first answer came, else at the end of the window', async () => {
    const wait = new FirstAnswerWait(200);
    const [a, b] = [attempt('fast-1'), attempt('fast-2')];
    const run = wait.wait([a, b]);
    a.answer();
    expect(await settledAfter(run, 10)).toBe(false);
    b.answer();
    expect(await settledAfter(run, 0)).toBe(true);

    const late = attempt('fast-1');
    const second = wait.wait([late]);
    expect(await settledAfter(second, 199)).toBe(false);
    expect(await settledAfter(second, 1)).toBe(true);
  });

  it('does not wait again for a receiver that left a wait unanswered, until it answers within the window', async () => {
    const wait = new FirstAnswerWait(200);
    const slow = attempt('slow');
    await Promise.all([wait.wait([slow]), vi.advanceTimersByTimeAsync(200)]);
    expect(wait.waitsFor('slow')).toBe(false);

    // A run with the slow receiver and a fast one waits for the fast one only.
    const [again, fast] = [attempt('slow'), attempt('fast')];
    const run = wait.wait([again, fast]);
    fast.answer();
    expect(await settledAfter(run, 0)).toBe(true);
    // A run with only the slow receiver does not wait at all.
    expect(await settledAfter(wait.wait([attempt('slow')]), 0)).toBe(true);

    // An answer slower than the window keeps the mark; one within it clears it.
    wait.answered('slow', 5_000);
    expect(wait.waitsFor('slow')).toBe(false);
    wait.answered('slow', 40);
    expect(wait.waitsFor('slow')).toBe(true);
    wait.answered('fast', 201);
    expect(wait.waitsFor('fast')).toBe(false);
  });

  it('keeps apart two apps whose receivers have the same id (a provider id is the app\u2019s own name)', () => {
    const wait = new FirstAnswerWait(200);
    const [mine, theirs] = [receiverOf({ appId: 'app-a', webhookId: 'custom:default' }), receiverOf({ appId: 'app-b', webhookId: 'custom:default' })];
    wait.answered(mine, 5_000);
    expect([wait.waitsFor(mine), wait.waitsFor(theirs)]).toEqual([false, true]);
    // The other app's fast answers do not make this one's slow receiver waited for again.
    wait.answered(theirs, 10);
    expect(wait.waitsFor(mine)).toBe(false);
  });

  it('remembers a bounded number of slow receivers, forgetting the longest-marked first', () => {
    const wait = new FirstAnswerWait(200, 2);
    for (const receiver of ['one', 'two', 'three']) wait.answered(receiver, 1_000);
    expect(['one', 'two', 'three'].map((r) => wait.waitsFor(r))).toEqual([true, false, false]);
  });

  it('with a window of 0 never waits', async () => {
    const wait = new FirstAnswerWait(0);
    expect(await settledAfter(wait.wait([attempt('any')]), 0)).toBe(true);
    expect(wait.waitsFor('any')).toBe(true);
  });
});
