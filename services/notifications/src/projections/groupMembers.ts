import { groupEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const GROUP_MEMBERS_COLLECTION = 'notification_group_members';
export const GROUP_VERSIONS_COLLECTION = 'notification_groups';

/**
 * A group's members are spread over this many documents by a hash of the uid, so a join or kick in
 * a group of 10,000 rewrites one document of ~300 uids instead of one of 10,000 (measured: ~100 ms of
 * FerretDB's single write core per join or kick, ADR 0009's addendum). Fixed, because a document's id
 * must follow from the event alone. A group message reads them only when the group's version document
 * (below) names a membership the process has not read yet (ADR 0043).
 */
export const GROUP_MEMBER_BUCKETS = 32;

/** Who is in a group now, for one bucket of uids: the recipients of its messages. */
export interface GroupMembersDocument {
  appId: string;
  guid: string;
  members: string[];
}

type Handled = EventOf<(typeof groupEventTypes)[number]>;

/** FNV-1a: a stable, well-spread bucket for a uid (no crypto needed, only an even spread). */
function bucketOf(uid: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    hash ^= uid.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % GROUP_MEMBER_BUCKETS;
}

function bucketId(appId: string, guid: string, bucket: number): string {
  return `${appId}:${guid}:${bucket}`;
}

/** The `_id`s of every bucket of a group (what a group message reads). */
export function groupMemberBucketIds(appId: string, guid: string): string[] {
  return Array.from({ length: GROUP_MEMBER_BUCKETS }, (_, bucket) => bucketId(appId, guid, bucket));
}

/** The bucket document a member belongs in. */
export function groupMemberBucketId(appId: string, guid: string, uid: string): string {
  return bucketId(appId, guid, bucketOf(uid));
}

function change(event: Handled): { add: string[]; remove: string[] } | 'deleted' | null {
  switch (event.type) {
    case 'GroupMemberJoined':
      return { add: [event.data.uid], remove: [] };
    case 'GroupMembersAdded':
      return { add: event.data.members.map((m) => m.uid), remove: [] };
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return { add: [], remove: [event.data.uid] };
    case 'GroupDeleted':
      return 'deleted';
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
    }
  }
}

/** Bucket documents (`_id` = `<appId>:<guid>:<bucket>`), fed by the group's own stream. */
export const groupMembersProjection: Projection<GroupMembersDocument, Handled> = {
  name: GROUP_MEMBERS_COLLECTION,
  eventTypes: groupEventTypes,
  documentIds: (event) => {
    const delta = change(event);
    const { appId } = event;
    const { guid } = event.data;
    if (delta === 'deleted') return groupMemberBucketIds(appId, guid);
    if (delta === null) return [];
    return [...new Set([...delta.add, ...delta.remove].map((uid) => groupMemberBucketId(appId, guid, uid)))];
  },
  evolve: (document, event, documentId) => {
    const delta = change(event);
    if (delta === 'deleted') return null;
    if (delta === null) return document;
    const { appId } = event;
    const { guid } = event.data;
    const mine = (uid: string) => groupMemberBucketId(appId, guid, uid) === documentId;
    const members = new Set(document?.members ?? []);
    for (const uid of delta.add) if (mine(uid)) members.add(uid);
    for (const uid of delta.remove) if (mine(uid)) members.delete(uid);
    return { appId, guid, members: [...members] };
  },
};

/** The version of a group's stream that last changed who is in it: what a cached member list is checked against. */
export interface GroupVersionDocument {
  appId: string;
  guid: string;
  version: number;
}

export function groupVersionId(appId: string, guid: string): string {
  return `${appId}:${guid}`;
}

/**
 * One small document per group (`_id` = `<appId>:<guid>`), rewritten on each membership change and
 * read by `_id` for each group message. Written only after the buckets (`NotificationReadModels`), so
 * a version it shows is already in them.
 */
export const groupVersionsProjection: Projection<GroupVersionDocument, Handled> = {
  name: GROUP_VERSIONS_COLLECTION,
  eventTypes: groupEventTypes,
  documentIds: (event) => (change(event) === null ? [] : [groupVersionId(event.appId, event.data.guid)]),
  evolve: (document, event) => {
    const delta = change(event);
    if (delta === 'deleted') return null;
    if (delta === null) return document;
    return { appId: event.appId, guid: event.data.guid, version: event.version };
  },
};
