import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { coalescedRuns } from './coalescedRuns.js';

const event = (uid: string): EventEnvelope => testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid });
const uids = (events: readonly EventEnvelope[]) => events.map((e) => (e.data as { uid: string }).uid);

/** An applier whose calls answer when the test says so (or fail on an event named `bad`). */
function heldApplier() {
  const calls: Array<{ uids: string[]; answer: () => void }> = [];
  return {
    calls,
    applier: {
      apply: (events: readonly EventEnvelope[]) =>
        new Promise<void>((resolve, reject) => {
          const names = uids(events);
          calls.push({ uids: names, answer: () => (names.includes('bad') ? reject(new Error('cannot apply bad')) : resolve()) });
        }),
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescedRuns', () => {
  it('applies the runs submitted in one turn in one call (a fetch\'s partitions), after that turn', async () => {
    const { calls, applier } = heldApplier();
    const runs = coalescedRuns(applier);
    const first = runs.apply([event('a1'), event('a2')]);
    const second = Promise.resolve().then(() => runs.apply([event('b1')]));
    // Nothing goes before the turn is done: the runs handed out with this one are still coming.
    expect(calls).toHaveLength(0);
    await settle();
    expect(calls.map((c) => c.uids)).toEqual([['a1', 'a2', 'b1']]);
    calls[0]!.answer();
    await Promise.all([first, second]);
  });

  it('applies a lone run right after its turn, and the runs that arrive meanwhile together in the next call, in arrival order', async () => {
    const { calls, applier } = heldApplier();
    const runs = coalescedRuns(applier);
    const first = runs.apply([event('a1'), event('a2')]);
    await settle();
    expect(calls.map((c) => c.uids)).toEqual([['a1', 'a2']]);
    const second = runs.apply([event('b1')]);
    const third = runs.apply([event('c1'), event('c2')]);
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]!.answer();
    await first;
    await settle();
    expect(calls.map((c) => c.uids)).toEqual([['a1', 'a2'], ['b1', 'c1', 'c2']]);
    calls[1]!.answer();
    await Promise.all([second, third]);
  });

  it('fails only the run that holds an event that cannot be applied; the runs beside it succeed', async () => {
    const { calls, applier } = heldApplier();
    const runs = coalescedRuns(applier);
    const first = runs.apply([event('a1')]);
    await settle();
    const good = runs.apply([event('b1')]);
    const broken = runs.apply([event('c1'), event('bad')]);
    calls[0]!.answer();
    await first;
    await settle();
    expect(calls[1]!.uids).toEqual(['b1', 'c1', 'bad']);
    calls[1]!.answer();
    await settle();
    // Applied again apart: one call per run.
    expect(calls.slice(2).map((c) => c.uids)).toEqual([['b1'], ['c1', 'bad']]);
    for (const call of calls.slice(2)) call.answer();
    await expect(good).resolves.toBeUndefined();
    await expect(broken).rejects.toThrow('cannot apply bad');
  });

  it('fails a lone run with its own error', async () => {
    const { calls, applier } = heldApplier();
    const runs = coalescedRuns(applier);
    const broken = runs.apply([event('bad')]);
    await settle();
    calls[0]!.answer();
    await expect(broken).rejects.toThrow('cannot apply bad');
    expect(calls).toHaveLength(1);
  });
});
