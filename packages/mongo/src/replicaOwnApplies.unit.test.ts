import type { EventEnvelope } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import type { Decider, DomainEvent, OwnReadModels } from '@chat/eventsourcing';
import { InMemoryCommitStore } from '@chat/eventsourcing/testing';
import { describe, expect, it, vi } from 'vitest';
import { InMemoryDocumentStore } from './documentStore.js';
import { ProjectionRuntime } from './projectionRuntime.js';
import type { Projection } from './projectionRuntime.js';

/**
 * Two replicas append to one stream and each applies its own commit to the shared read model (ADR 0157).
 * The read model keeps, per stream, the last version it applied and skips anything at or below it, so a
 * later commit applied before an earlier one would hide the earlier one for good.
 */
type Added = DomainEvent<'ItemAdded', { item: string }>;
const list: Decider<{ items: string[] }, { add: string }, Added> = {
  initialState: () => ({ items: [] }),
  decide: (command) => [{ type: 'ItemAdded', data: { item: command.add } }],
  evolve: (state, event) => ({ items: [...state.items, event.data.item] }),
  snapshotVersion: 1,
};

interface ListDoc {
  items: string[];
}
const listProjection: Projection<ListDoc> = {
  name: 'lists',
  eventTypes: ['ItemAdded'] as never,
  documentIds: (event) => [event.streamId],
  evolve: (doc, event) => ({ items: [...(doc?.items ?? []), (event.data as { item: string }).item] }),
};

const logger = { warn: () => undefined, info: () => undefined };
const schemas = { newestVersion: () => 1, upcast: <E extends EventEnvelope>(event: E): E => event };
const metadata = { appId: 'app', actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const }, correlationId: 'req', now: new Date(1_000) };

/** A replica: its own runner and its own projection runtime (own cache) over the shared stores. */
function replica(store: InMemoryCommitStore, documents: InMemoryDocumentStore, hold?: Promise<void>) {
  const runtime = new ProjectionRuntime(listProjection, documents);
  const readModels: OwnReadModels = {
    apply: async (events) => {
      if (hold) await hold;
      await runtime.apply(events);
    },
  };
  const runner = new CommandRunner({ store, publisher: { publish: async () => undefined }, logger, readModels, schemas });
  return { runner, add: (item: string) => runner.run({ decider: list, streamId: 'list-1', command: { add: item }, metadata }) };
}

describe('own applies of one stream from two replicas', () => {
  it('keep both commits when the later one is applied first, and read nothing when no other replica wrote', async () => {
    const store = new InMemoryCommitStore();
    const documents = new InMemoryDocumentStore();
    let release!: () => void;
    const slow = replica(store, documents, new Promise<void>((resolve) => (release = resolve)));
    const fast = replica(store, documents);
    const read = vi.spyOn(store, 'commitsStartingBetween');

    // The slow replica's commit (version 1) is appended; its apply waits.
    const first = slow.add('a');
    await vi.waitFor(async () => expect(await store.readHead('list-1')).toMatchObject({ version: 1 }));
    expect(read).not.toHaveBeenCalled();
    // The fast replica continues from it (version 2) and applies before the slow one does.
    await fast.add('b');
    expect(read).toHaveBeenCalledWith('list-1', 1, 1);
    release();
    await first;
    expect(documents.snapshot<ListDoc>().get('list-1')?.items).toEqual(['a', 'b']);

    // The slow replica's head in memory is stale: its append conflicts, and it re-applies only what
    // came after its own last apply (version 2) before its own (version 3).
    read.mockClear();
    await slow.add('c');
    expect(read).toHaveBeenCalledWith('list-1', 2, 2);
    expect(documents.snapshot<ListDoc>().get('list-1')?.items).toEqual(['a', 'b', 'c']);

    // A turn that continues its own head reads nothing.
    read.mockClear();
    await slow.add('d');
    expect(read).not.toHaveBeenCalled();
    expect(documents.snapshot<ListDoc>().get('list-1')?.items).toEqual(['a', 'b', 'c', 'd']);
  });
});
