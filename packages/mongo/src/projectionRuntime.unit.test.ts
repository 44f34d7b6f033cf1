import { isUnapplicableEventError } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from './documentStore.js';
import type { DocumentStore, GuardedWrite, StoredRecord } from './documentStore.js';
import { ProjectionRuntime, allOf } from './projectionRuntime.js';
import type { EventApplier, Projection } from './projectionRuntime.js';
import { removingTallies, tallied, talliesProjection as tallies, tallyHistoryArbitrary as historyArbitrary } from './testTallies.js';
import type { TallyDoc, TallyEvent } from './testTallies.js';

function runtimeOver(store: DocumentStore, projection = tallies) {
  return new ProjectionRuntime(projection, store);
}

async function oneByOne(events: readonly EventEnvelope[], projection = tallies): Promise<Map<string, TallyDoc>> {
  const store = new InMemoryDocumentStore();
  const runtime = runtimeOver(store, projection);
  for (const event of events) await runtime.apply([event]);
  return store.snapshot<TallyDoc>();
}

async function inBatches(events: readonly EventEnvelope[], sizes: readonly number[], projection = tallies): Promise<Map<string, TallyDoc>> {
  const store = new InMemoryDocumentStore();
  const runtime = runtimeOver(store, projection);
  let start = 0;
  for (let i = 0; start < events.length; i++) {
    const size = sizes[i % sizes.length] ?? events.length;
    await runtime.apply(events.slice(start, start + size));
    start += size;
  }
  return store.snapshot<TallyDoc>();
}

/** A store that counts its calls and can fail them, as an unreachable database would. */
class InstrumentedStore implements DocumentStore {
  /** Documents read, and commands of each kind (a read of several ids is one `findMany`). */
  readonly calls = { read: 0, findMany: 0, insert: 0, writeGuarded: 0 };
  /** Every call, an empty one too (each is an async round for the caller). */
  entered = 0;
  failuresLeft = 0;

  constructor(readonly inner = new InMemoryDocumentStore()) {}

  private check(): void {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('connection refused');
    }
  }

  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    this.entered += 1;
    if (ids.length > 0) this.calls.findMany += 1;
    this.calls.read += ids.length;
    this.check();
    return this.inner.findMany(ids);
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    this.entered += 1;
    if (documents.length > 0) this.calls.insert += 1;
    this.check();
    return this.inner.insert(documents);
  }

  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    this.entered += 1;
    if (writes.length > 0) this.calls.writeGuarded += 1;
    this.check();
    return this.inner.writeGuarded(writes);
  }
}

describe('ProjectionRuntime', () => {
  it('folds several events per document in one batch into one read and one write per document', async () => {
    const store = new InstrumentedStore();
    const runtime = runtimeOver(store);
    await runtime.apply([tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1', 'd2']), tallied('s:b', 1, ['d2']), tallied('s:a', 3, ['d1'])]);
    expect(store.inner.snapshot()).toEqual(
      new Map([
        ['d1', { seen: ['s:a@1', 's:a@2', 's:a@3'], total: 3, closed: false }],
        ['d2', { seen: ['s:a@2', 's:b@1'], total: 2, closed: false }],
      ]),
    );
    // d1 is created by its first event (no read), d2 is read once; one insert command for both.
    expect(store.calls).toEqual({ read: 1, findMany: 1, insert: 1, writeGuarded: 0 });
  });

  it('answers the documents it has just written without reading them, and reads only the ones it does not know', async () => {
    const store = new InstrumentedStore();
    await runtimeOver(store.inner).apply([tallied('s:b', 1, ['elsewhere'], 'open')]);
    const runtime = runtimeOver(store);
    await runtime.apply([tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1'])]);
    const before = { ...store.calls };
    const current = await runtime.current(['d1', 'elsewhere', 'absent']);
    expect(current).toEqual(
      new Map([
        ['d1', { seen: ['s:a@1', 's:a@2'], total: 2, closed: false }],
        ['elsewhere', { seen: ['s:b@1'], total: 1, closed: false }],
      ]),
    );
    // d1 from memory; the document another writer made and the absent one are read, in one command.
    expect(store.calls.read - before.read).toBe(2);
    expect(store.calls.findMany - before.findMany).toBe(1);
  });

  it('gives the same documents for any batching as for one event at a time (property)', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }), async (history, sizes) => {
        expect(await inBatches(history, sizes)).toEqual(await oneByOne(history));
        expect(await inBatches(history, sizes, removingTallies)).toEqual(await oneByOne(history, removingTallies));
      }),
      { numRuns: 150 },
    );
  });

  it('is unchanged by redelivery of any earlier part of the history, and replay from scratch agrees (property)', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.nat(), fc.nat(), async (history, from, length) => {
        const store = new InMemoryDocumentStore();
        const runtime = runtimeOver(store);
        await runtime.apply(history);
        const once = store.snapshot();
        const start = history.length === 0 ? 0 : from % history.length;
        // At-least-once delivery: a consumer restarted from an older offset sees a suffix again, in
        // this process (which remembers what it wrote) or in a fresh one (which must read).
        await runtime.apply(history.slice(start, start + length));
        expect(store.snapshot()).toEqual(once);
        await runtimeOver(store).apply(history.slice(start, start + length));
        expect(store.snapshot()).toEqual(once);
        expect(await oneByOne(history)).toEqual(once);
      }),
      { numRuns: 150 },
    );
  });

  it('two writers racing on the same documents (consumer and request path) lose no update', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.integer({ min: 1, max: 7 }), async (history, size) => {
        const store = new InMemoryDocumentStore();
        // Separate runtimes, as in two replicas: separate caches, one store.
        const consumer = runtimeOver(store);
        const requests = runtimeOver(store);
        const batches: EventEnvelope[][] = [];
        for (let i = 0; i < history.length; i += size) batches.push(history.slice(i, i + size));
        // The request path applies each batch as it happens; the consumer follows with the whole log.
        await Promise.all([
          (async () => {
            for (const batch of batches) await requests.apply(batch);
          })(),
          consumer.apply(history),
        ]);
        await consumer.apply(history);
        expect(store.snapshot()).toEqual(await oneByOne(history));
      }),
      { numRuns: 100 },
    );
  });

  it('skips events it wrote itself without reading, and a stale memory only costs a re-read', async () => {
    const store = new InstrumentedStore();
    const mine = runtimeOver(store);
    const other = runtimeOver(store.inner);
    const first = [tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1'])];
    await mine.apply(first);
    const afterWrite = { ...store.calls };
    await mine.apply(first);
    expect(store.calls).toEqual(afterWrite);

    // Another replica moves the document on; this process still remembers revision 1.
    await other.apply([tallied('s:a', 3, ['d1'])]);
    await mine.apply([tallied('s:a', 4, ['d1'])]);
    expect(store.inner.snapshot().get('d1')).toEqual({ seen: ['s:a@1', 's:a@2', 's:a@3', 's:a@4'], total: 4, closed: false });
    expect(store.calls.read).toBe(afterWrite.read + 1);
  });

  it('takes turns within a process: the request path and the consumer applying the same new events insert once and read nothing', async () => {
    const store = new InstrumentedStore();
    const runtime = runtimeOver(store);
    const created = [tallied('s:a', 1, ['d1', 'd2'], 'open')];
    // As in a service: its own events are applied by the request path while the consumer receives them.
    await Promise.all([runtime.apply(created), runtime.apply(created), runtime.apply([tallied('s:b', 1, ['d2'])])]);
    expect(store.calls).toEqual({ read: 0, findMany: 0, insert: 1, writeGuarded: 1 });
    expect(store.inner.snapshot()).toEqual(await oneByOne([...created, tallied('s:b', 1, ['d2'])]));
  });

  it('verifies with a read when a document assumed new folds to nothing', async () => {
    const store = new InMemoryDocumentStore();
    await runtimeOver(store, removingTallies).apply([tallied('s:a', 1, ['d1'], 'open')]);
    // A fresh process (empty memory) sees the creation again together with the close.
    await runtimeOver(store, removingTallies).apply([tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1'], 'close')]);
    expect(store.snapshot().size).toBe(0);
  });

  it('a store outage fails the batch, and the retried batch applies it exactly once', async () => {
    const store = new InstrumentedStore();
    const runtime = runtimeOver(store);
    const batch = [tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d1', 'd2'], 'open'), tallied('s:b', 1, ['d1'])];
    store.failuresLeft = 2;
    await expect(runtime.apply(batch)).rejects.toThrow('connection refused');
    await expect(runtime.apply(batch)).rejects.toThrow('connection refused');
    await runtime.apply(batch);
    expect(store.inner.snapshot()).toEqual(await oneByOne(batch));
  });

  it('turns a projection that throws on an event into an unapplicable-event error naming it', async () => {
    const runtime = new ProjectionRuntime<TallyDoc, TallyEvent>(
      { ...tallies, evolve: () => { throw new Error('bad payload'); } },
      new InMemoryDocumentStore(),
    );
    const event = tallied('s:a', 1, ['d1'], 'open');
    const error: unknown = await runtime.apply([event]).catch((caught: unknown) => caught);
    expect(isUnapplicableEventError(error) && error.eventId).toBe(event.id);
  });

  it('applies events without a source position as a merge: no positions kept, nothing written when nothing changes', async () => {
    // The largest amount seen per document: re-applying any event is a no-op whatever came between.
    const maxima: Projection<{ max: number }, TallyEvent> = {
      name: 'maxima',
      eventTypes: ['Tallied'],
      documentIds: (event) => event.data.docs,
      sourceOf: () => null,
      evolve: (doc, event) => ({ max: Math.max(doc?.max ?? 0, event.data.amount) }),
    };
    const store = new InstrumentedStore();
    const runtime = new ProjectionRuntime(maxima, store);
    const history = [tallied('s:a', 1, ['d1'], 'add', 5), tallied('s:b', 1, ['d1'], 'add', 3), tallied('s:c', 1, ['d1', 'd2'], 'add', 7)];
    await runtime.apply(history);
    expect(store.inner.stored()).toEqual([
      { _id: 'd1', _positions: {}, _rev: 1, max: 7 },
      { _id: 'd2', _positions: {}, _rev: 1, max: 7 },
    ]);
    const afterWrite = { ...store.calls };
    // Redelivered, in this process (remembered) and in a fresh one (read, folded, found unchanged).
    await runtime.apply(history.slice(0, 2));
    expect(store.calls).toEqual(afterWrite);
    await new ProjectionRuntime(maxima, store).apply(history);
    expect(store.calls).toEqual({ ...afterWrite, read: afterWrite.read + 2, findMany: afterWrite.findMany + 1 });
    expect(store.inner.stored().map((doc) => doc._rev)).toEqual([1, 1]);
  });

  it('calls the store not at all for a batch its memory answers (a send read back from the own topic)', async () => {
    const store = new InstrumentedStore();
    const runtime = runtimeOver(store);
    const events = [tallied('s:a', 1, ['d1'], 'open'), tallied('s:a', 2, ['d2'], 'open')];
    await runtime.apply(events);
    const entered = store.entered;
    await runtime.apply(events);
    expect(store.entered).toBe(entered);
    expect(store.inner.snapshot().size).toBe(2);
  });

  it('ignores event types outside its family', async () => {
    const store = new InstrumentedStore();
    await runtimeOver(store).apply([testEnvelope('SomethingElse', 's:a', 1, { docs: ['d1'] })]);
    expect(store.calls).toEqual({ read: 0, findMany: 0, insert: 0, writeGuarded: 0 });
  });
});

describe('allOf', () => {
  /** An applier that counts its batches; `handles` as the runtime under it says, unless told it has none. */
  function counted(inner: EventApplier & { handles(event: EventEnvelope): boolean }, withHandles = true): EventApplier & { batches: number } {
    const applier = {
      batches: 0,
      apply(events: readonly EventEnvelope[]) {
        applier.batches += 1;
        return inner.apply(events);
      },
      ...(withHandles ? { handles: (event: EventEnvelope) => inner.handles(event) } : {}),
    };
    return applier;
  }

  it('hands a batch only to the appliers that read one of its types, and always to one that cannot tell', async () => {
    const store = new InstrumentedStore();
    const others: Projection<TallyDoc, TallyEvent> = { ...tallies, name: 'others', eventTypes: ['SomethingElse' as 'Tallied'] };
    const reading = counted(runtimeOver(store));
    const notReading = counted(runtimeOver(new InMemoryDocumentStore(), others));
    const unknown = counted(runtimeOver(new InMemoryDocumentStore(), others), false);
    const all = allOf(reading, notReading, unknown);
    await all.apply([tallied('s:a', 1, ['d1'], 'open')]);
    expect([reading.batches, notReading.batches, unknown.batches]).toEqual([1, 0, 1]);
    expect(store.inner.snapshot().get('d1')).toEqual({ seen: ['s:a@1'], total: 1, closed: false });
    // A combination of appliers that all tell says so itself; one that cannot tell makes it unable to.
    expect(allOf(reading, notReading).handles?.(tallied('s:a', 2, ['d1']))).toBe(true);
    expect(allOf(notReading).handles?.(tallied('s:a', 2, ['d1']))).toBe(false);
    expect('handles' in all).toBe(false);
  });
});
