import { eventTypeIn, groupEventTypes, groupSummaryOf } from '@chat/contracts';
import type { EventEnvelope, EventOf, GroupScope, GroupSummary } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** A group as sending and action messages need it: it exists, and its entity snapshot. */
export interface KnownGroupDoc extends GroupSummary {
  kind: 'group';
  appId: string;
  membersCount: number;
  createdAt: number;
  updatedAt: number;
  updatedBy?: string;
  deleted: boolean;
}

/** One user's standing in one group; `none` after leaving, being kicked or unbanned. */
export interface MembershipDoc {
  kind: 'member';
  appId: string;
  guid: string;
  uid: string;
  standing: 'member' | 'banned' | 'none';
  scope?: GroupScope;
}

export type GroupFactDoc = KnownGroupDoc | MembershipDoc;

export type GroupEvent = EventOf<(typeof groupEventTypes)[number]>;

const isGroupEventType = eventTypeIn(groupEventTypes);

export function isGroupEvent(event: EventEnvelope): event is GroupEvent {
  return isGroupEventType(event);
}

export function knownGroupId(appId: string, guid: string): string {
  return `group:${appId}:${guid}`;
}

export function membershipId(appId: string, guid: string, uid: string): string {
  return `member:${appId}:${guid}:${uid}`;
}

/** The members an event changes, with the standing and scope each ends up with. */
function memberChanges(event: GroupEvent): { uid: string; standing: MembershipDoc['standing']; scope?: GroupScope }[] {
  switch (event.type) {
    case 'GroupMemberJoined':
      return [{ uid: event.data.uid, standing: 'member', scope: event.data.scope }];
    case 'GroupMembersAdded':
      return event.data.members.map((m) => ({ uid: m.uid, standing: 'member' as const, scope: m.scope }));
    case 'GroupMemberScopeChanged':
      return [{ uid: event.data.uid, standing: 'member', scope: event.data.scope }];
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberUnbanned':
      return [{ uid: event.data.uid, standing: 'none' }];
    case 'GroupMemberBanned':
      return [{ uid: event.data.uid, standing: 'banned' }];
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupDeleted':
      return [];
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** How an event changes the member count. */
function membersDelta(event: GroupEvent): number {
  switch (event.type) {
    case 'GroupMemberJoined':
      return 1;
    case 'GroupMembersAdded':
      return event.data.members.length;
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return -1;
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupDeleted':
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return 0;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolveGroup(doc: KnownGroupDoc | null, event: GroupEvent): KnownGroupDoc | null {
  switch (event.type) {
    case 'GroupCreated': {
      const g = event.data;
      return {
        kind: 'group',
        appId: event.appId,
        ...groupSummaryOf(g),
        membersCount: doc?.membersCount ?? 0,
        createdAt: g.createdAt,
        updatedAt: g.createdAt,
        deleted: false,
      };
    }
    case 'GroupUpdated': {
      if (!doc) return null;
      const { changes, removed } = event.data;
      const next: KnownGroupDoc = {
        ...doc,
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.type !== undefined ? { type: changes.type } : {}),
        ...(changes.owner !== undefined ? { owner: changes.owner } : {}),
        ...(changes.icon !== undefined ? { icon: changes.icon } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        updatedAt: event.data.updatedAt,
        ...(event.data.updatedBy !== undefined ? { updatedBy: event.data.updatedBy } : {}),
      };
      if (removed.includes('icon')) delete next.icon;
      if (removed.includes('description')) delete next.description;
      return next;
    }
    case 'GroupDeleted':
      return doc ? { ...doc, deleted: true } : null;
    case 'GroupMemberJoined':
    case 'GroupMembersAdded':
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
    case 'GroupMemberUnbanned':
    case 'GroupMemberScopeChanged':
      return doc ? { ...doc, membersCount: Math.max(0, doc.membersCount + membersDelta(event)) } : null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Groups and memberships, from the conversations service's group events. One group stream feeds a
 * group's document and its members' documents, each guarded by that stream's version.
 */
export const groupFactsProjection: Projection<GroupFactDoc, GroupEvent> = {
  name: 'group_facts',
  eventTypes: groupEventTypes,
  documentIds: (event) => [
    knownGroupId(event.appId, event.data.guid),
    ...memberChanges(event).map((m) => membershipId(event.appId, event.data.guid, m.uid)),
  ],
  evolve(doc, event, documentId) {
    if (documentId === knownGroupId(event.appId, event.data.guid)) {
      return evolveGroup(doc?.kind === 'group' ? doc : null, event);
    }
    const change = memberChanges(event).find((m) => membershipId(event.appId, event.data.guid, m.uid) === documentId);
    if (!change) return doc;
    const previous = doc?.kind === 'member' ? doc : null;
    const scope = change.scope ?? previous?.scope;
    return {
      kind: 'member',
      appId: event.appId,
      guid: event.data.guid,
      uid: change.uid,
      standing: change.standing,
      ...(scope !== undefined && change.standing === 'member' ? { scope } : {}),
    };
  },
};
