import { InMemoryCommitStore, handleCommand } from '@chat/eventsourcing';
import type { Decider } from '@chat/eventsourcing';
import { describe, expect, it } from 'vitest';
import { CachedHeadsCommitStore } from './cachedHeads.js';

type Counted = { type: 'Counted'; data: { n: number } };
const counter: Decider<number, { type: 'Count' }, Counted> = {
  initialState: () => 0,
  decide: (_command, state) => [{ type: 'Counted', data: { n: state + 1 } }],
  evolve: (state) => state + 1,
  snapshotVersion: 1,
};
const meta = { appId: 'a', actor: { appId: 'a', keyId: 'k', scope: 'fullAccess' as const }, correlationId: 'c', now: new Date(0) };

describe('cached stream heads', () => {
  it('serves its own appends from memory and recovers from another writer’s append by retrying', async () => {
    const shared = new InMemoryCommitStore();
    let reads = 0;
    const counting = Object.assign(Object.create(shared) as InMemoryCommitStore, {
      readHead: (id: string) => {
        reads += 1;
        return shared.readHead(id);
      },
    });
    const mine = new CachedHeadsCommitStore(counting);
    await handleCommand(mine, counter, 's', { type: 'Count' }, meta);
    await handleCommand(mine, counter, 's', { type: 'Count' }, meta);
    expect(reads).toBe(1);
    // Another instance appends behind this one's back: the cached head is stale.
    await handleCommand(shared, counter, 's', { type: 'Count' }, meta);
    const result = await handleCommand(mine, counter, 's', { type: 'Count' }, meta);
    expect(result.state).toBe(4);
    expect(result.version).toBe(4);
  });
});
