import { ApiError } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import type { Decider, DomainEvent } from './decider.js';
import { handleCommand } from './handleCommand.js';
import { InMemoryCommitStore } from './memoryStore.js';
import type { AppendResult, Commit, EventPublisher } from './store.js';

type CounterEvent = DomainEvent<'Incremented', { by: number }>;
const counter: Decider<{ total: number }, { by: number; max: number }, CounterEvent> = {
  initialState: () => ({ total: 0 }),
  decide: (command, state) => {
    if (state.total + command.by > command.max) throw new ApiError('ERR_BAD_REQUEST', 'over the maximum');
    return command.by === 0 ? [] : [{ type: 'Incremented', data: { by: command.by } }];
  },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  snapshotVersion: 1,
};
const metadata = () => ({
  appId: 'app',
  actor: { appId: 'app', keyId: 'k', scope: 'fullAccess' as const },
  correlationId: 'req-1',
  now: new Date(1_000),
});

describe('handleCommand', () => {
  it('appends envelopes with consecutive versions and publishes them', async () => {
    const store = new InMemoryCommitStore();
    const published: string[] = [];
    const publisher: EventPublisher = { publish: async (events) => void published.push(...events.map((e) => e.id)) };
    const first = await handleCommand(store, counter, 's', { by: 2, max: 10 }, metadata(), { publisher });
    const second = await handleCommand(store, counter, 's', { by: 3, max: 10 }, metadata(), { publisher });
    expect(first.events[0]).toMatchObject({ type: 'Incremented', version: 1, streamId: 's', appId: 'app', correlationId: 'req-1' });
    expect(second.events[0]?.version).toBe(2);
    expect(second.state).toEqual({ total: 5 });
    expect(published).toEqual([first.events[0]?.id, second.events[0]?.id]);
    expect(store.all().every((c) => c.published)).toBe(true);
  });

  it('writes nothing for a command that decides no events', async () => {
    const store = new InMemoryCommitStore();
    const result = await handleCommand(store, counter, 's', { by: 0, max: 10 }, metadata());
    expect(result.events).toEqual([]);
    expect(store.all()).toHaveLength(0);
  });

  it('re-decides on a fresh state after losing an append race', async () => {
    const store = new InMemoryCommitStore();
    let raced = false;
    const racing = Object.assign(Object.create(store) as InMemoryCommitStore, {
      append: async (commit: Commit): Promise<AppendResult> => {
        if (!raced) {
          raced = true;
          // Another writer commits version 1 between our read and our append.
          await store.append({ ...commit, commitId: 'other', events: commit.events.map((e) => ({ ...e, data: { by: 4 } })), snapshot: { version: 1, state: { total: 4 } } });
        }
        return store.append(commit);
      },
    });
    await expect(handleCommand(racing, counter, 's', { by: 3, max: 5 }, metadata())).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST' });
    const ok = await handleCommand(racing, counter, 's', { by: 1, max: 5 }, metadata());
    expect(ok.version).toBe(2);
    expect(ok.state).toEqual({ total: 5 });
  });

  it('keeps the commit when publishing fails, for the relay to send later', async () => {
    const store = new InMemoryCommitStore();
    const failures: unknown[] = [];
    const publisher: EventPublisher = { publish: async () => Promise.reject(new Error('broker down')) };
    await handleCommand(store, counter, 's', { by: 1, max: 5 }, metadata(), { publisher, onPublishError: (e) => failures.push(e) });
    expect(failures).toHaveLength(1);
    expect(await store.findUnpublished(new Date(2_000), 10)).toHaveLength(1);
  });

  it('replays the stream when the stored snapshot has another shape version', async () => {
    const store = new InMemoryCommitStore();
    await handleCommand(store, counter, 's', { by: 2, max: 10 }, metadata());
    const changed = { ...counter, snapshotVersion: 2 };
    const result = await handleCommand(store, changed, 's', { by: 1, max: 10 }, metadata());
    expect(result.state).toEqual({ total: 3 });
  });
});
