import type { EventEnvelope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { bansProjection } from './bans.js';
import { groupsProjection } from './groups.js';
import { deletedAfter, groupHistory, lifeOfAGroup } from './groupsTestEvents.js';
import { membersProjection } from './members.js';

type Store = Map<string, { doc: object; positions: Record<string, number> }>;

/** The guarded writer's logic over a map: what GuardedProjectionWriter does against MongoDB. */
function applyAll(projection: Projection<object, EventEnvelope>, events: readonly EventEnvelope[], store: Store = new Map()): Store {
  for (const event of events) {
    if (!projection.canHandle(event)) continue;
    for (const id of projection.documentIds(event)) {
      const current = store.get(id);
      const source = projection.sourceOf(event, id);
      if ((current?.positions[source] ?? 0) >= event.version) continue;
      const next = projection.evolve(current?.doc ?? null, event, id);
      if (next) store.set(id, { doc: next, positions: { ...current?.positions, [source]: event.version } });
      else store.delete(id);
    }
  }
  return store;
}

const projections = [groupsProjection, membersProjection, bansProjection] as unknown as Array<Projection<object, EventEnvelope>>;
const groups = groupsProjection as unknown as Projection<object, EventEnvelope>;
const history = groupHistory('g', lifeOfAGroup);

describe('group projections', () => {
  it('follow a group through its life: profile, count, members and bans', () => {
    const [groupDocs, members, bans] = projections.map((p) => applyAll(p, history));
    expect(groupDocs?.get('app1:g')?.doc).toEqual({
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
    const active = [...(members?.values() ?? [])].map((entry) => entry.doc as { uid: string; scope: string; active: boolean });
    expect(Object.fromEntries(active.filter((m) => m.active).map((m) => [m.uid, m.scope]))).toEqual({ o: 'admin', p: 'moderator' });
    expect(active.filter((m) => !m.active).map((m) => m.uid).sort()).toEqual(['a', 'q']);
    expect(bans?.get('app1:g:x')?.doc).toMatchObject({ uid: 'x', active: false, bannedAt: 13 });
  });

  it('are unchanged by redelivery of every event, and by an old event arriving after a removal', () => {
    for (const projection of projections) {
      const once = applyAll(projection, history);
      expect(applyAll(projection, history, structuredClone(once))).toEqual(once);
      expect(applyAll(projection, [...history].reverse(), structuredClone(once))).toEqual(once);
    }
  });

  it('keep a deleted group as a tombstone that older events cannot revive, and start over on re-creation', () => {
    const deleted = deletedAfter(history);
    const store = applyAll(groups, deleted);
    expect(store.get('app1:g')?.doc).toMatchObject({ deleted: true });
    expect(applyAll(groups, history, structuredClone(store))).toEqual(store);
    const reborn = groupHistory(
      'g',
      [{ type: 'CreateGroup', profile: { guid: 'g', name: 'New', type: 'private', owner: '', tags: [] }, members: [], usersToBan: [], now: 30 }],
      deleted.length + 1,
    );
    expect(applyAll(groups, reborn, store).get('app1:g')?.doc).toEqual({
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
