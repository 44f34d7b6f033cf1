import { groupStreamEventTypes } from '@chat/contracts';
import type { EventOf, GroupCreated, GroupUpdated } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { GroupFacts } from '../../domain/groups/groupsView.js';

/**
 * One group as lists and reads show it (no password hash: the read side never needs it): what the
 * views read (`GroupFacts`), and what this read model keeps beside it.
 */
export interface GroupDoc extends GroupFacts {
  appId: string;
  /** Lower-cased name: case-insensitive sorting on an index. */
  nameKey: string;
  /** Set by GroupDeleted: a tombstone, so redelivered older events cannot bring the group back. */
  deleted?: true;
}

export function groupDocId(appId: string, guid: string): string {
  return `${appId}:${guid}`;
}

function created(appId: string, data: GroupCreated): GroupDoc {
  return {
    appId,
    guid: data.guid,
    name: data.name,
    nameKey: data.name.toLowerCase(),
    type: data.type,
    owner: data.owner,
    ...(data.icon !== undefined ? { icon: data.icon } : {}),
    ...(data.description !== undefined ? { description: data.description } : {}),
    ...(data.metadata !== undefined ? { metadata: JSON.stringify(data.metadata) } : {}),
    tags: data.tags,
    createdAt: data.createdAt,
    updatedAt: data.createdAt,
    membersCount: 0,
  };
}

function updated(doc: GroupDoc, data: GroupUpdated): GroupDoc {
  const { changes } = data;
  const next: GroupDoc = { ...doc, updatedAt: Math.max(doc.updatedAt, data.updatedAt) };
  if (changes.name !== undefined) Object.assign(next, { name: changes.name, nameKey: changes.name.toLowerCase() });
  if (changes.type !== undefined) next.type = changes.type;
  if (changes.owner !== undefined) next.owner = changes.owner;
  if (changes.icon !== undefined) next.icon = changes.icon;
  if (changes.description !== undefined) next.description = changes.description;
  if (changes.metadata !== undefined) next.metadata = JSON.stringify(changes.metadata);
  if (changes.tags !== undefined) next.tags = changes.tags;
  for (const key of data.removed) {
    if (key === 'tags') next.tags = [];
    else if (key !== 'passwordHash') delete next[key];
  }
  return next;
}

/** A membership change: the group's `updatedAt` moves and, when the event says, its member count. */
function membershipChanged(doc: GroupDoc | null, at: number, membersCount: number | undefined): GroupDoc | null {
  if (!doc || doc.deleted) return doc;
  return { ...doc, updatedAt: Math.max(doc.updatedAt, at), ...(membersCount !== undefined ? { membersCount } : {}) };
}

type Handled = EventOf<(typeof groupStreamEventTypes)[number]>;

/**
 * Groups of every app, for listing and reading; membership events keep `membersCount` and
 * `updatedAt`. Every event of the group's stream passes through, so the document's position is the
 * stream version the group read models have applied (a command's roster waits for it).
 */
export const groupsProjection: Projection<GroupDoc, Handled> = {
  name: 'groups',
  eventTypes: groupStreamEventTypes,
  documentIds: (event) => [groupDocId(event.appId, event.data.guid)],
  sourceOf: () => 'group',
  evolve(doc, event) {
    switch (event.type) {
      case 'GroupCreated':
        return created(event.appId, event.data);
      case 'GroupUpdated':
        return doc && !doc.deleted ? updated(doc, event.data) : doc;
      case 'GroupDeleted':
        return doc ? { ...doc, deleted: true, updatedAt: Math.max(doc.updatedAt, event.data.deletedAt) } : null;
      case 'GroupMemberJoined':
        return membershipChanged(doc, event.data.joinedAt, event.data.membersCount);
      case 'GroupMembersAdded':
        return membershipChanged(doc, event.data.addedAt, event.data.membersCount);
      case 'GroupMemberLeft':
        return membershipChanged(doc, event.data.leftAt, event.data.membersCount);
      case 'GroupMemberKicked':
        return membershipChanged(doc, event.data.kickedAt, event.data.membersCount);
      case 'GroupMemberBanned':
        return membershipChanged(doc, event.data.bannedAt, event.data.membersCount);
      case 'GroupMemberScopeChanged':
        return membershipChanged(doc, event.data.changedAt, undefined);
      case 'GroupMemberUnbanned':
      case 'GroupScopePermissionsChanged':
        return doc;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
