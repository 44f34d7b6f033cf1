import { conversationMarkEventTypes, conversationPinEventTypes, groupConversationId, groupMembershipEventTypes } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { conversationMemberDocId, emptyMember, joined, left } from '../domain/conversationMember.js';
import type { ConversationMemberDoc } from '../domain/conversationMember.js';
import { messageIdNumber } from '../domain/conversationTimeline.js';

const memberEventTypes = [...conversationMarkEventTypes, ...conversationPinEventTypes, ...groupMembershipEventTypes] as const;
export type MemberEvent = Extract<KnownEvent, { type: (typeof memberEventTypes)[number] }>;

/** The users whose own facts the event changes, and the conversation. */
function ownersOf(event: MemberEvent): { conversationId: string; owners: string[] } {
  switch (event.type) {
    case 'GroupMembersAdded':
      return { conversationId: groupConversationId(event.data.guid), owners: event.data.members.map((m) => m.uid) };
    case 'GroupMemberJoined':
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
    case 'GroupMemberScopeChanged':
      return { conversationId: groupConversationId(event.data.guid), owners: [event.data.uid] };
    case 'ConversationPinned':
    case 'ConversationUnpinned':
    case 'ConversationRead':
    case 'ConversationMarkedUnread':
    case 'ConversationDelivered':
    case 'ConversationUpdated':
    case 'ConversationReset':
      return { conversationId: event.data.conversationId, owners: [event.data.uid] };
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The owner's facts after one of their events; pure. */
function evolveMember(current: ConversationMemberDoc | null, event: MemberEvent, owner: string): ConversationMemberDoc | null {
  const { appId } = event;
  const at = Date.parse(event.occurredAt);
  switch (event.type) {
    case 'ConversationPinned': {
      const { conversationId, conversationType, conversationWith, pinnedAt } = event.data;
      const base = current ?? emptyMember(appId, owner, conversationId, conversationType, conversationWith);
      return { ...base, pinnedAt, pinOrder: event.version };
    }
    case 'ConversationUnpinned': {
      if (!current) return null;
      const { pinnedAt, pinOrder, ...unpinned } = current;
      void pinnedAt;
      void pinOrder;
      return unpinned;
    }
    case 'ConversationRead':
    case 'ConversationMarkedUnread':
    case 'ConversationDelivered':
    case 'ConversationUpdated':
    case 'ConversationReset': {
      const { conversationId, conversationType, conversationWith } = event.data;
      const base = current ?? emptyMember(appId, owner, conversationId, conversationType, conversationWith);
      if (event.type === 'ConversationRead') {
        const upTo = messageIdNumber(event.data.messageId);
        return { ...base, readUpTo: upTo, deliveredUpTo: Math.max(base.deliveredUpTo, upTo) };
      }
      if (event.type === 'ConversationMarkedUnread') return { ...base, readUpTo: messageIdNumber(event.data.messageId) };
      if (event.type === 'ConversationDelivered') {
        return { ...base, deliveredUpTo: Math.max(base.deliveredUpTo, messageIdNumber(event.data.messageId)) };
      }
      if (event.type === 'ConversationUpdated') return { ...base, tags: event.data.tags };
      return { ...base, clearedUpTo: Math.max(base.clearedUpTo, messageIdNumber(event.data.upToMessageId)) };
    }
    case 'GroupMembersAdded': {
      const member = event.data.members.find((m) => m.uid === owner);
      if (!member) return current;
      const base = current ?? emptyMember(appId, owner, groupConversationId(event.data.guid), 'group', event.data.guid);
      return joined(base, at, event.data.addedAt, member.scope);
    }
    case 'GroupMemberJoined': {
      const base = current ?? emptyMember(appId, owner, groupConversationId(event.data.guid), 'group', event.data.guid);
      return joined(base, at, event.data.joinedAt, event.data.scope);
    }
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return current ? left(current, at) : null;
    case 'GroupMemberScopeChanged':
      return current ? { ...current, scope: event.data.scope } : null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Each user's own facts per conversation. A member document is written by that user's marks, pins
 * and membership changes only — never by a message, so a group message or a join touches no other
 * member's document.
 */
export const conversationMembers: Projection<ConversationMemberDoc, MemberEvent> = {
  name: 'conversation-members',
  eventTypes: memberEventTypes,
  documentIds(event: MemberEvent): string[] {
    const { conversationId, owners } = ownersOf(event);
    return owners.map((owner) => conversationMemberDocId(event.appId, owner, conversationId));
  },
  evolve(doc: ConversationMemberDoc | null, event: MemberEvent, documentId: string): ConversationMemberDoc | null {
    const { conversationId } = ownersOf(event);
    const owner = documentId.slice(event.appId.length + 1, documentId.length - conversationId.length - 1);
    return evolveMember(doc, event, owner);
  },
};
