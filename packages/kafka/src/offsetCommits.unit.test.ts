import { describe, expect, it } from 'vitest';
import { OffsetCommits } from './offsetCommits.js';
import type { CommittableOffset, UncommittedOffsets } from './offsetCommits.js';

/** A hand-driven clock and timer queue, and every commit made (by the batch or by the timer). */
function harness(options: { failTimerCommits?: number } = {}) {
  let now = 1_000;
  const timers: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
  const commits: Array<{ by: 'batch' | 'timer'; offsets: readonly CommittableOffset[] }> = [];
  let timerFailures = options.failTimerCommits ?? 0;
  const errors: unknown[] = [];
  const offsets = new OffsetCommits({
    intervalMs: 500,
    commit: (committed) => {
      if (timerFailures > 0) {
        timerFailures -= 1;
        return Promise.reject(new Error('rebalance in progress'));
      }
      commits.push({ by: 'timer', offsets: committed });
      return Promise.resolve();
    },
    onError: (error) => errors.push(error),
    now: () => now,
    schedule: (run, ms) => {
      const timer = { at: now + ms, run, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    },
  });
  const byBatch = (committed: readonly CommittableOffset[]) => {
    commits.push({ by: 'batch', offsets: committed });
    return Promise.resolve();
  };
  const applied = (topic: string, partition: number, offset: number) => {
    const uncommitted: UncommittedOffsets = { topics: [{ topic, partitions: [{ partition, offset: String(offset) }] }] };
    return offsets.applied(uncommitted, byBatch);
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const timer of timers.filter((t) => !t.cancelled && t.at <= now)) {
      timer.cancelled = true;
      timer.run();
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { offsets, commits, errors, applied, advance, pendingTimers: () => timers.filter((t) => !t.cancelled).length };
}

describe('OffsetCommits', () => {
  it('commits the first batch at once and the ones within the interval together, by the timer', async () => {
    const h = harness();
    await h.applied('messages', 0, 11);
    expect(h.commits).toEqual([{ by: 'batch', offsets: [{ topic: 'messages', partition: 0, offset: '11' }] }]);

    await h.advance(100);
    await h.applied('messages', 1, 5);
    await h.advance(100);
    await h.applied('messages', 0, 14);
    expect(h.commits).toHaveLength(1);

    await h.advance(299);
    expect(h.commits).toHaveLength(1);
    await h.advance(1);
    expect(h.commits[1]).toEqual({
      by: 'timer',
      offsets: [
        { topic: 'messages', partition: 1, offset: '5' },
        { topic: 'messages', partition: 0, offset: '14' },
      ],
    });
    expect(h.offsets.waiting).toEqual([]);
    expect(h.pendingTimers()).toBe(0);
  });

  it('does not hold the batch for its commit: the batch returns while the commit is in flight', async () => {
    let answer: (() => void) | undefined;
    const made: CommittableOffset[][] = [];
    const offsets = new OffsetCommits({ intervalMs: 500, commit: () => Promise.resolve(), onError: () => undefined });
    const hanging = (committed: readonly CommittableOffset[]) => {
      made.push([...committed]);
      return new Promise<void>((resolve) => (answer = resolve));
    };
    const batch: UncommittedOffsets = { topics: [{ topic: 'messages', partitions: [{ partition: 0, offset: '7' }] }] };
    const returned = await Promise.race([offsets.applied(batch, hanging).then(() => 'returned'), new Promise((resolve) => setTimeout(() => resolve('held'), 50))]);
    expect(returned).toBe('returned');
    expect(made).toEqual([[{ topic: 'messages', partition: 0, offset: '7' }]]);
    // A flush (a rebalance) still waits for the commit in flight.
    let flushed = false;
    const flush = offsets.flush().then(() => (flushed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);
    answer?.();
    await flush;
    expect(flushed).toBe(true);
  });

  it('a stopping consumer still waits for each batch\'s commit', async () => {
    let answer: (() => void) | undefined;
    const offsets = new OffsetCommits({ intervalMs: 500, commit: () => Promise.resolve(), onError: () => undefined });
    offsets.stopping();
    const hanging = () => new Promise<void>((resolve) => (answer = resolve));
    const batch: UncommittedOffsets = { topics: [{ topic: 'messages', partitions: [{ partition: 0, offset: '3' }] }] };
    const returned = await Promise.race([offsets.applied(batch, hanging).then(() => 'returned'), new Promise((resolve) => setTimeout(() => resolve('held'), 50))]);
    expect(returned).toBe('held');
    answer?.();
  });

  it('never commits a partition backwards when an older snapshot arrives after a newer one', async () => {
    const h = harness();
    await h.applied('users', 2, 1);
    await h.applied('users', 2, 30);
    await h.applied('users', 2, 20);
    expect(h.offsets.waiting).toEqual([{ topic: 'users', partition: 2, offset: '30' }]);
  });

  it('keeps a failed commit for the next one, and the timer tries again', async () => {
    const h = harness({ failTimerCommits: 1 });
    await h.applied('messages', 0, 1);
    await h.applied('messages', 0, 2);
    await h.advance(500);
    expect(h.errors).toHaveLength(1);
    expect(h.offsets.waiting).toEqual([{ topic: 'messages', partition: 0, offset: '2' }]);
    await h.advance(500);
    expect(h.commits.at(-1)).toEqual({ by: 'timer', offsets: [{ topic: 'messages', partition: 0, offset: '2' }] });
  });

  it('drops what waits after a rejoin (it is fetched again), and commits every batch at once while stopping', async () => {
    const h = harness();
    await h.applied('messages', 0, 1);
    await h.applied('messages', 0, 9);
    h.offsets.forget();
    await h.advance(1_000);
    expect(h.commits).toHaveLength(1);

    h.offsets.stopping();
    await h.applied('messages', 0, 12);
    expect(h.commits.at(-1)).toEqual({ by: 'batch', offsets: [{ topic: 'messages', partition: 0, offset: '12' }] });
  });

  it('flush commits what waits at once (a rebalance, a stop)', async () => {
    const h = harness();
    await h.applied('messages', 0, 1);
    await h.applied('messages', 0, 3);
    await h.offsets.flush();
    expect(h.commits.at(-1)).toEqual({ by: 'timer', offsets: [{ topic: 'messages', partition: 0, offset: '3' }] });
    expect(h.pendingTimers()).toBe(0);
  });
});
