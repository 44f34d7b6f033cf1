import type { EventEnvelope } from '@chat/contracts';
import { applyInMemory } from '@chat/mongo';
import type { InMemoryDocumentStore, Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { bansProjection } from './bans.js';
import { groupsProjection } from './groups.js';
import { deletedAfter, groupHistory, lifeOfAGroup } from './groupsTestEvents.js';
import { membersProjection } from './members.js';

/** The real runtime over an in-memory store, one batch: the same guard and fold as production. */
function applyAll(projection: Projection<object>, events: readonly EventEnvelope[], store?: InMemoryDocumentStore): Promise<InMemoryDocumentStore> {
  return applyInMemory(projection, events, store);
}

const projections = [groupsProjection, membersProjection, bansProjection] as unknown as Array<Projection<object>>;
const groups = groupsProjection as unknown as Projection<object>;
const history = groupHistory('g', lifeOfAGroup);

describe('group projections', () => {
  it('follow a group through its life: profile, count, members and bans', async () => {
    const [groupDocs, members, bans] = await Promise.all(projections.map((p) => applyAll(p, history)));
    expect(groupDocs?.document('app1:g')).toEqual({
      appId: 'app1',
      guid: 'g',
      name: 'Gee 2',
      nameKey: 'gee 2',
      type: 'public',
      owner: 'o',
      description: 'about',
      tags: ['t'],
      createdAt: 10,
      updatedAt: 17,
      membersCount: 2,
    });
    const active = [...(members?.snapshot<{ uid: string; scope: string; active: boolean }>().values() ?? [])];
    expect(Object.fromEntries(active.filter((m) => m.active).map((m) => [m.uid, m.scope]))).toEqual({ o: 'admin', p: 'moderator' });
    expect(active.filter((m) => !m.active).map((m) => m.uid).sort()).toEqual(['a', 'q']);
    expect(bans?.document('app1:g:x')).toMatchObject({ uid: 'x', active: false, bannedAt: 13 });
  });

  it('are unchanged by redelivery of every event, and by an old event arriving after a removal', async () => {
    for (const projection of projections) {
      const once = await applyAll(projection, history);
      expect((await applyAll(projection, history, once.copy())).stored()).toEqual(once.stored());
      expect((await applyAll(projection, [...history].reverse(), once.copy())).stored()).toEqual(once.stored());
    }
  });

  it('keep a deleted group as a tombstone that older events cannot revive, and start over on re-creation', async () => {
    const deleted = deletedAfter(history);
    const store = await applyAll(groups, deleted);
    expect(store.document('app1:g')).toMatchObject({ deleted: true });
    expect((await applyAll(groups, history, store.copy())).stored()).toEqual(store.stored());
    const reborn = groupHistory(
      'g',
      [{ type: 'CreateGroup', profile: { guid: 'g', name: 'New', type: 'private', owner: '', tags: [] }, members: [], usersToBan: [], now: 30 }],
      deleted.length + 1,
    );
    expect((await applyAll(groups, reborn, store)).document('app1:g')).toEqual({
      appId: 'app1',
      guid: 'g',
      name: 'New',
      nameKey: 'new',
      type: 'private',
      owner: '',
      tags: [],
      createdAt: 30,
      updatedAt: 30,
      membersCount: 0,
    });
  });
});
