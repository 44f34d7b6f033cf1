import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { membershipChangesOf, membershipEventTypes } from '../domain/membership.js';

type Handled = EventOf<(typeof membershipEventTypes)[number]>;

/**
 * A user's groups, read by `_id` when the user's first connection opens (ADR 0069 addendum): each with
 * the version of the group-stream event that made the user a member, so a deletion of the group after
 * it (`DeletedGroupDoc`) leaves it out. Kept, emptied, when the user has no group left: the document
 * holds the runtime's position per group stream, which makes a redelivered old join a no-op.
 */
export interface UserGroupsDoc {
  appId: string;
  uid: string;
  groups: Array<{ guid: string; since: number }>;
}

/** A deleted group: the version of its stream's last `GroupDeleted`. A group re-created with the guid continues that stream. */
export interface DeletedGroupDoc {
  appId: string;
  guid: string;
  deletedAtVersion: number;
}

export function userGroupsDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

export function deletedGroupDocId(appId: string, guid: string): string {
  return `${appId}:${guid}`;
}

export const userGroupsProjection: Projection<UserGroupsDoc, Handled> = {
  name: 'userGroups',
  eventTypes: membershipEventTypes,
  documentIds: (event) => membershipChangesOf(event).flatMap((change) => (change.uid === undefined ? [] : [userGroupsDocId(event.appId, change.uid)])),
  evolve(doc, event, documentId) {
    let uid = doc?.uid;
    const groups = new Map((doc?.groups ?? []).map((g) => [g.guid, g.since]));
    for (const change of membershipChangesOf(event)) {
      if (change.uid === undefined || userGroupsDocId(event.appId, change.uid) !== documentId) continue;
      uid = change.uid;
      if (change.member) groups.set(change.guid, event.version);
      else groups.delete(change.guid);
    }
    if (uid === undefined) return doc;
    return { appId: event.appId, uid, groups: [...groups].map(([guid, since]) => ({ guid, since })) };
  },
};

export const deletedGroupsProjection: Projection<DeletedGroupDoc, Handled> = {
  name: 'deletedGroups',
  eventTypes: membershipEventTypes,
  documentIds: (event) => (event.type === 'GroupDeleted' ? [deletedGroupDocId(event.appId, event.data.guid)] : []),
  evolve(doc, event) {
    if (event.type !== 'GroupDeleted') return doc;
    return { appId: event.appId, guid: event.data.guid, deletedAtVersion: Math.max(doc?.deletedAtVersion ?? 0, event.version) };
  },
};

/** The guids a user is in now: its memberships that no deletion of the group came after. */
export function liveGroupsOf(doc: UserGroupsDoc | null, deletions: ReadonlyMap<string, number>): string[] {
  return (doc?.groups ?? []).filter((g) => (deletions.get(g.guid) ?? 0) < g.since).map((g) => g.guid);
}
