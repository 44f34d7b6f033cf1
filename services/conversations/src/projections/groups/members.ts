import { groupMembershipEventTypes } from '@chat/contracts';
import type { EventOf, GroupScope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { groupMemberDocId, uidOfMemberDocId } from './groupsEvents.js';

export interface MemberDoc {
  appId: string;
  guid: string;
  uid: string;
  scope: GroupScope;
  joinedAt: number;
  updatedAt: number;
  /** False once the user left, was kicked or banned: the tombstone keeps the position guard. */
  active: boolean;
}

type Handled = EventOf<(typeof groupMembershipEventTypes)[number]>;

/**
 * One document per (group, user) that ever was a member. Removal leaves a tombstone rather than
 * deleting the document, so a redelivered older event finds the newer position and changes nothing.
 * A deleted group's members are tombstoned by the read-model adapter (GroupDeleted names no member);
 * everything else is a pure function of the group's events.
 */
export const membersProjection: Projection<MemberDoc, Handled> = {
  name: 'group_members',
  eventTypes: groupMembershipEventTypes,
  documentIds: (event) =>
    event.type === 'GroupMembersAdded'
      ? event.data.members.map((member) => groupMemberDocId(event.appId, event.data.guid, member.uid))
      : [groupMemberDocId(event.appId, event.data.guid, event.data.uid)],
  sourceOf: () => 'group',
  evolve(doc, event, documentId) {
    const { appId } = event;
    switch (event.type) {
      case 'GroupMemberJoined': {
        const { guid, uid, scope, joinedAt } = event.data;
        return { appId, guid, uid, scope, joinedAt, updatedAt: joinedAt, active: true };
      }
      case 'GroupMembersAdded': {
        const uid = uidOfMemberDocId(documentId);
        const member = event.data.members.find((m) => m.uid === uid);
        if (!member) return doc;
        const { guid, addedAt } = event.data;
        return { appId, guid, uid, scope: member.scope, joinedAt: addedAt, updatedAt: addedAt, active: true };
      }
      case 'GroupMemberScopeChanged':
        return doc ? { ...doc, scope: event.data.scope, updatedAt: event.data.changedAt } : null;
      case 'GroupMemberLeft':
        return doc ? { ...doc, active: false, updatedAt: event.data.leftAt } : null;
      case 'GroupMemberKicked':
        return doc ? { ...doc, active: false, updatedAt: event.data.kickedAt } : null;
      case 'GroupMemberBanned':
        return doc ? { ...doc, active: false, updatedAt: event.data.bannedAt } : null;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
