import { describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from './documentStore.js';
import { DocumentMemory } from './documentMemory.js';
import { ProjectionRuntime } from './projectionRuntime.js';
import { talliesProjection, tallied } from './testTallies.js';

/** A projection writing to an in-memory store, and a memory over that store that counts its reads. */
function setUp(maxAgeMs = 10_000, watchCurrentAsOf?: () => number) {
  const store = new InMemoryDocumentStore();
  const projection = new ProjectionRuntime(talliesProjection, store);
  let clock = 0;
  const reads: string[] = [];
  const memory = new DocumentMemory(
    {
      findMany: (ids) => {
        reads.push(...ids);
        return store.findMany(ids);
      },
    },
    [talliesProjection],
    { maxAgeMs, now: () => clock, ...(watchCurrentAsOf ? { watchCurrentAsOf } : {}) },
  );
  const totals = async (...ids: string[]) => {
    const found = await memory.getMany(ids);
    return ids.map((id) => (found.get(id)?.['total'] as number | undefined) ?? null);
  };
  return { projection, memory, reads, totals, advance: (ms: number) => (clock += ms) };
}

describe('DocumentMemory', () => {
  it('serves a document read once from memory, absent ones included', async () => {
    const { projection, reads, totals } = setUp();
    await projection.apply([tallied('s:a', 1, ['d1'], 'open')]);
    expect(await totals('d1', 'nobody')).toEqual([1, null]);
    expect(await totals('d1', 'nobody')).toEqual([1, null]);
    expect(reads).toEqual(['d1', 'nobody']);
  });

  it('forgets a document an event changes, and keeps a new read only once the store shows that event', async () => {
    const { projection, memory, reads, totals } = setUp();
    const created = tallied('s:a', 1, ['d1'], 'open');
    await projection.apply([created]);
    await totals('d1');
    const added = tallied('s:a', 2, ['d1']);
    memory.observe([added]); // on Kafka; the projection has not applied it yet
    expect(await totals('d1')).toEqual([1]);
    expect(await totals('d1')).toEqual([1]); // read again: what was read is behind the event
    await projection.apply([added]);
    expect(await totals('d1')).toEqual([2]);
    expect(await totals('d1')).toEqual([2]);
    expect(reads).toEqual(['d1', 'd1', 'd1', 'd1']);
  });

  it('keeps an entry that already shows the event it observes (the event arrived after the read)', async () => {
    const { projection, memory, reads, totals } = setUp();
    const events = [tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1'])];
    await projection.apply(events);
    await totals('d1');
    memory.observe(events);
    expect(await totals('d1')).toEqual([2]);
    expect(reads).toEqual(['d1']);
  });

  it('reads again a remembered document short of positions the caller knows were written (a write on another replica)', async () => {
    const { projection, memory, reads, totals } = setUp();
    await projection.apply([tallied('s:a', 1, ['d1'], 'open')]);
    await totals('d1');
    // Another replica applied v2; this one's watch has not seen it yet.
    await projection.apply([tallied('s:a', 2, ['d1'])]);
    expect(await totals('d1')).toEqual([1]);
    const asked = async () => (await memory.getMany(['d1'], { 's:a': 2 })).get('d1')?.['total'];
    expect(await asked()).toBe(2);
    // What it read is remembered: the next plain read is served from memory, and current.
    expect(await totals('d1')).toEqual([2]);
    expect(reads).toEqual(['d1', 'd1']);
    // Positions the store does not have yet: answered as read, not remembered.
    expect((await memory.getMany(['d1'], { 's:a': 3 })).get('d1')?.['total']).toBe(2);
    await projection.apply([tallied('s:a', 3, ['d1'])]);
    expect(await totals('d1')).toEqual([2]);
    expect(await asked()).toBe(2);
    expect((await memory.getMany(['d1'], { 's:a': 3 })).get('d1')?.['total']).toBe(3);
    expect(reads).toEqual(['d1', 'd1', 'd1', 'd1']);
  });

  it('a document that did not exist is read again once an event creates it', async () => {
    const { projection, memory, totals } = setUp();
    expect(await totals('d1')).toEqual([null]);
    const created = tallied('s:a', 1, ['d1'], 'open');
    memory.observe([created]);
    await projection.apply([created]);
    expect(await totals('d1')).toEqual([1]);
  });

  it('serves nothing older than its maximum age', async () => {
    const { projection, reads, totals, advance } = setUp(1_000);
    await projection.apply([tallied('s:a', 1, ['d1'], 'open')]);
    await totals('d1');
    advance(999);
    await totals('d1');
    advance(1);
    await totals('d1');
    expect(reads).toEqual(['d1', 'd1']);
  });

  it('keeps an entry past its maximum age while the watch is known to have seen everything since', async () => {
    let watchedUpTo = Number.NEGATIVE_INFINITY;
    const { projection, memory, reads, totals, advance } = setUp(1_000, () => watchedUpTo);
    await projection.apply([tallied('s:a', 1, ['d1'], 'open')]);
    await totals('d1'); // read at 0
    advance(5_000);
    watchedUpTo = 4_500; // a fence round: the watch had everything on the topics at 4,500
    expect(await totals('d1')).toEqual([1]);
    expect(reads).toEqual(['d1']);
    // An event the watch sees still forgets it at once.
    const added = tallied('s:a', 2, ['d1']);
    await projection.apply([added]);
    memory.observe([added]);
    expect(await totals('d1')).toEqual([2]);
    expect(reads).toEqual(['d1', 'd1']);
  });

  it('a watch that stops confirming lets entries age out again', async () => {
    const { projection, reads, totals, advance } = setUp(1_000, () => 500);
    await projection.apply([tallied('s:a', 1, ['d1'], 'open')]);
    await totals('d1'); // read at 0, the watch last confirmed at 500
    advance(1_499);
    await totals('d1');
    advance(1);
    await totals('d1'); // 1,000 ms past the watch's last confirmation: read again
    expect(reads).toEqual(['d1', 'd1']);
  });
});
