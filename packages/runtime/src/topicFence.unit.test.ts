import type { Watermark } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { TopicFence } from './topicFence.js';

/** A fence over one partition whose watch is always caught up; records when each watermark read happened. */
function caughtUpFence(minRoundSpacingMs: number) {
  const reads: number[] = [];
  const fence = new TopicFence({
    readWatermarks: () => {
      reads.push(Date.now());
      const watermarks: Watermark[] = [{ topic: 't', partition: 0, offset: 0 }];
      return new Promise((resolve) => setTimeout(() => resolve(watermarks), 2));
    },
    timeoutMs: 1_000,
    minRoundSpacingMs,
  });
  fence.advance({ topic: 't', partition: 0, next: 0 });
  return { fence, reads };
}

/** Callers every `everyMs` for `forMs`, each passing the fence at its own time; when each was let go. */
async function steadyCallers(fence: TopicFence, everyMs: number, forMs: number): Promise<Array<{ at: number; passed: number }>> {
  const passes: Array<Promise<{ at: number; passed: number }>> = [];
  const end = Date.now() + forMs;
  while (Date.now() < end) {
    const at = Date.now();
    passes.push(fence.pass(at).then(() => ({ at, passed: Date.now() })));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Promise.all(passes);
}

describe('TopicFence round spacing', () => {
  it('spaces rounds under a steady stream of callers, and lets each go only after a read at or after its time', async () => {
    const spaced = caughtUpFence(50);
    const callers = await steadyCallers(spaced.fence, 3, 400);
    // Back to back, rounds would follow each 2 ms read; spaced, about one per 50 ms.
    expect(spaced.reads.length).toBeLessThanOrEqual(11);
    for (let i = 1; i < spaced.reads.length; i++) expect(spaced.reads[i]! - spaced.reads[i - 1]!).toBeGreaterThanOrEqual(49);
    for (const { at, passed } of callers) {
      expect(spaced.reads.some((read) => read >= at && read <= passed)).toBe(true);
      expect(passed - at).toBeLessThan(50 + 50 + 40);
    }
    expect(spaced.fence.counters.rounds).toBe(spaced.reads.length);
  });

  it('without spacing rounds follow each other as the reads answer', async () => {
    const unspaced = caughtUpFence(0);
    const started = Date.now();
    await steadyCallers(unspaced.fence, 3, 200);
    const elapsed = Date.now() - started;
    // Judged against the time the run really took (a loaded machine stretches every timer): spaced by
    // 50 ms no more than elapsed / 50 + 1 rounds would fit, and no two reads would be closer than 49 ms.
    expect(unspaced.reads.length).toBeGreaterThan(Math.floor(elapsed / 50) + 1);
    const gaps = unspaced.reads.slice(1).map((read, i) => read - unspaced.reads[i]!);
    expect(Math.min(...gaps)).toBeLessThan(49);
  });

  it('a caller after a quiet spell gets a round at once', async () => {
    const { fence, reads } = caughtUpFence(50);
    await fence.pass(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 80));
    const at = Date.now();
    await fence.pass(at);
    expect(reads).toHaveLength(2);
    expect(reads[1]! - at).toBeLessThan(15);
  });
});
