import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { deletedGroupsProjection, liveGroupsOf, userGroupsDocId, userGroupsProjection } from './userGroups.js';
import type { DeletedGroupDoc, UserGroupsDoc } from './userGroups.js';

const stream = (guid: string) => `group:app1:${guid}`;
const joined = (guid: string, uid: string, version: number) => testEnvelope('GroupMemberJoined', stream(guid), version, { guid, uid, scope: 'participant', joinedAt: 1 }) as KnownEvent;
const added = (guid: string, uids: string[], version: number) =>
  testEnvelope('GroupMembersAdded', stream(guid), version, { guid, members: uids.map((uid) => ({ uid, scope: 'participant' })), addedAt: 1 }) as KnownEvent;
const left = (guid: string, uid: string, version: number) => testEnvelope('GroupMemberLeft', stream(guid), version, { guid, uid, leftAt: 1 }) as KnownEvent;
const deleted = (guid: string, version: number) => testEnvelope('GroupDeleted', stream(guid), version, { guid, deletedAt: 1 }) as KnownEvent;

/** Folds events as the projection runtime does: per document each event names, in order. */
function fold(events: KnownEvent[]) {
  const users = new Map<string, UserGroupsDoc | null>();
  const groups = new Map<string, number>();
  for (const event of events) {
    for (const id of userGroupsProjection.documentIds(event as never)) users.set(id, userGroupsProjection.evolve(users.get(id) ?? null, event as never, id));
    for (const id of deletedGroupsProjection.documentIds(event as never)) {
      const doc: DeletedGroupDoc | null = deletedGroupsProjection.evolve(null, event as never, id);
      if (doc) groups.set(doc.guid, Math.max(groups.get(doc.guid) ?? 0, doc.deletedAtVersion));
    }
  }
  return (uid: string) => liveGroupsOf(users.get(userGroupsDocId('app1', uid)) ?? null, groups);
}

describe("a user's groups, read by _id when it connects", () => {
  it('follows joins, adds and leaves per user; an add of many members names each one document', () => {
    expect(userGroupsProjection.documentIds(added('crew', ['a', 'b', 'c'], 2) as never)).toEqual(['app1:a', 'app1:b', 'app1:c']);
    const groupsOf = fold([joined('crew', 'a', 1), added('crew', ['b', 'c'], 2), joined('band', 'b', 1), left('crew', 'c', 3)]);
    expect(groupsOf('a')).toEqual(['crew']);
    expect(groupsOf('b').sort()).toEqual(['band', 'crew']);
    expect(groupsOf('c')).toEqual([]);
    expect(groupsOf('nobody')).toEqual([]);
  });

  it('leaves out a deleted group, and counts a membership of the group re-created with the same guid', () => {
    const groupsOf = fold([joined('crew', 'a', 1), added('crew', ['b'], 2), deleted('crew', 3), joined('crew', 'b', 5)]);
    expect(groupsOf('a')).toEqual([]);
    expect(groupsOf('b')).toEqual(['crew']);
  });

  it('keeps the emptied document (it carries the stream positions that make a redelivered join a no-op)', () => {
    const id = userGroupsDocId('app1', 'a');
    const afterJoin = userGroupsProjection.evolve(null, joined('crew', 'a', 1) as never, id);
    const afterLeave = userGroupsProjection.evolve(afterJoin, left('crew', 'a', 2) as never, id);
    expect(afterLeave).toEqual({ appId: 'app1', uid: 'a', groups: [] });
  });
});
