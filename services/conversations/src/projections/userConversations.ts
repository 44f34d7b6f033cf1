import { groupConversationId } from '@chat/contracts';
import type {
  ConversationDelivered,
  ConversationMarkedUnread,
  ConversationPinned,
  ConversationRead,
  ConversationReset,
  ConversationUnpinned,
  ConversationUpdated,
  EventEnvelope,
  GroupMemberBanned,
  GroupMemberJoined,
  GroupMemberKicked,
  GroupMemberLeft,
  GroupMemberScopeChanged,
  GroupMembersAdded,
  MessageSent,
} from '@chat/contracts';
import type { GroupScope } from '@chat/contracts';
import type { MembershipInterval, SharedConversationDoc, UserConversationDoc } from '../domain/conversationView.js';

/** Events that change one user's own facts about a conversation. */
export type MemberEvent =
  | EventEnvelope<'MessageSent', MessageSent>
  | EventEnvelope<'ConversationPinned', ConversationPinned>
  | EventEnvelope<'ConversationUnpinned', ConversationUnpinned>
  | EventEnvelope<'ConversationRead', ConversationRead>
  | EventEnvelope<'ConversationMarkedUnread', ConversationMarkedUnread>
  | EventEnvelope<'ConversationDelivered', ConversationDelivered>
  | EventEnvelope<'ConversationUpdated', ConversationUpdated>
  | EventEnvelope<'ConversationReset', ConversationReset>
  | EventEnvelope<'GroupMembersAdded', GroupMembersAdded>
  | EventEnvelope<'GroupMemberJoined', GroupMemberJoined>
  | EventEnvelope<'GroupMemberLeft', GroupMemberLeft>
  | EventEnvelope<'GroupMemberKicked', GroupMemberKicked>
  | EventEnvelope<'GroupMemberBanned', GroupMemberBanned>
  | EventEnvelope<'GroupMemberScopeChanged', GroupMemberScopeChanged>;

const ownMarkTypes = new Set([
  'ConversationPinned',
  'ConversationUnpinned',
  'ConversationRead',
  'ConversationMarkedUnread',
  'ConversationDelivered',
  'ConversationUpdated',
  'ConversationReset',
]);
const membershipTypes = new Set([
  'GroupMembersAdded',
  'GroupMemberJoined',
  'GroupMemberLeft',
  'GroupMemberKicked',
  'GroupMemberBanned',
  'GroupMemberScopeChanged',
]);

export function isMemberEvent(event: EventEnvelope): event is MemberEvent {
  if (event.type === 'MessageSent') {
    const message = event.data as MessageSent;
    return message.receiverType === 'user' && message.parentId === undefined;
  }
  return ownMarkTypes.has(event.type) || membershipTypes.has(event.type);
}

export function userConversationDocId(appId: string, owner: string, conversationId: string): string {
  return `${appId}:${owner}:${conversationId}`;
}

/** The users whose own view of a conversation the event changes, with that conversation. */
export function ownersOf(event: MemberEvent): { conversationId: string; owners: string[] } {
  switch (event.type) {
    case 'MessageSent':
      return { conversationId: event.data.conversationId, owners: [event.data.sender, event.data.receiver] };
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

function emptyDoc(appId: string, owner: string, conversationId: string, conversationType: 'user' | 'group', peer: string): UserConversationDoc {
  return {
    appId,
    owner,
    conversationId,
    conversationType,
    peer,
    readUpTo: 0,
    deliveredUpTo: 0,
    clearedUpTo: 0,
    listed: false,
    unreadCount: 0,
    lastMessageSeq: 0,
    createdAt: 0,
    updatedAt: 0,
    sharedRev: 0,
  };
}

function join(doc: UserConversationDoc, at: number, joinedAt: number, scope: GroupScope): UserConversationDoc {
  const membership = doc.membership ?? [];
  const open = membership.at(-1)?.to === undefined && membership.length > 0;
  return {
    ...doc,
    membership: open ? membership : [...membership, { from: at }],
    scope,
    joinedAt: open ? (doc.joinedAt ?? joinedAt) : joinedAt,
    firstSeenAt: Math.min(doc.firstSeenAt ?? joinedAt, joinedAt),
  };
}

function leave(doc: UserConversationDoc, at: number): UserConversationDoc {
  const membership = doc.membership ?? [];
  const last = membership.at(-1);
  if (!last || last.to !== undefined) return doc;
  const { scope, ...rest } = doc;
  void scope;
  return { ...rest, membership: [...membership.slice(0, -1), { from: last.from, to: Math.max(at, last.from) }] };
}

function messageId(raw: string): number {
  return Number(raw) || 0;
}

/** The owner's facts after one of their events; pure. `owner` picks the participant a message is applied for. */
export function evolveUserConversation(current: UserConversationDoc | null, event: MemberEvent, owner: string): UserConversationDoc | null {
  const { appId } = event;
  const at = Date.parse(event.occurredAt);
  switch (event.type) {
    case 'MessageSent': {
      const m = event.data;
      const peer = owner === m.sender ? m.receiver : m.sender;
      const base = current ?? emptyDoc(appId, owner, m.conversationId, 'user', peer);
      return { ...base, firstSeenAt: Math.min(base.firstSeenAt ?? m.sentAt, m.sentAt) };
    }
    case 'ConversationPinned': {
      const { conversationId, conversationType, conversationWith, pinnedAt } = event.data;
      const base = current ?? emptyDoc(appId, owner, conversationId, conversationType, conversationWith);
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
      const base = current ?? emptyDoc(appId, owner, conversationId, conversationType, conversationWith);
      if (event.type === 'ConversationRead') {
        const upTo = messageId(event.data.messageId);
        return { ...base, readUpTo: upTo, deliveredUpTo: Math.max(base.deliveredUpTo, upTo) };
      }
      if (event.type === 'ConversationMarkedUnread') return { ...base, readUpTo: messageId(event.data.messageId) };
      if (event.type === 'ConversationDelivered') {
        return { ...base, deliveredUpTo: Math.max(base.deliveredUpTo, messageId(event.data.messageId)) };
      }
      if (event.type === 'ConversationUpdated') return { ...base, tags: event.data.tags };
      return { ...base, clearedUpTo: Math.max(base.clearedUpTo, messageId(event.data.upToMessageId)) };
    }
    case 'GroupMembersAdded': {
      const member = event.data.members.find((m) => m.uid === owner);
      if (!member) return current;
      const conversationId = groupConversationId(event.data.guid);
      const base = current ?? emptyDoc(appId, owner, conversationId, 'group', event.data.guid);
      return join(base, at, event.data.addedAt, member.scope);
    }
    case 'GroupMemberJoined': {
      const conversationId = groupConversationId(event.data.guid);
      const base = current ?? emptyDoc(appId, owner, conversationId, 'group', event.data.guid);
      return join(base, at, event.data.joinedAt, event.data.scope);
    }
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return current ? leave(current, at) : null;
    case 'GroupMemberScopeChanged':
      return current ? { ...current, scope: event.data.scope } : null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

function isMemberAt(membership: readonly MembershipInterval[] | undefined, at: number): boolean {
  if (membership === undefined) return true;
  return membership.some((m) => at >= m.from && (m.to === undefined || at < m.to));
}

/**
 * The owner's derived view: which messages they see (after their own and everyone's deletion marks,
 * inside their membership), the last of them, and how many of them are unread. A pure function of
 * the owner's facts and the shared document, so the result does not depend on which of the two
 * topics' events arrived first.
 */
export function deriveUserConversation(
  doc: UserConversationDoc,
  shared: SharedConversationDoc | null,
  sharedRev: number,
): UserConversationDoc {
  const cleared = Math.max(doc.clearedUpTo, shared?.clearedUpTo ?? 0);
  const ledger = shared?.ledger ?? [];
  const visible = ledger.filter((e) => e.id > cleared && isMemberAt(doc.membership, e.at));
  const unreadCount = visible.filter((e) => e.deleted !== true && e.action !== true && e.sender !== doc.owner && e.id > doc.readUpTo).length;
  const last = visible.at(-1);
  const { lastMessage: previousLast, ...rest } = doc;
  let lastMessage: string | undefined;
  let lastMessageSeq = 0;
  let lastSentAt: number | undefined;
  if (last) {
    lastMessageSeq = last.id;
    lastSentAt = last.sentAt;
    lastMessage = last.message ?? (doc.lastMessageSeq === last.id ? previousLast : undefined);
  } else if (doc.lastMessageSeq > cleared && doc.lastMessageSeq < (ledger[0]?.id ?? 0)) {
    // Older than the ledger's window (a former member): keep what the owner last saw.
    lastMessageSeq = doc.lastMessageSeq;
    lastMessage = previousLast;
    lastSentAt = doc.updatedAt;
  }
  const isGroup = doc.conversationType === 'group';
  const createdAt = doc.firstSeenAt ?? ledger.find((e) => e.id > cleared)?.sentAt ?? 0;
  const hasMessage = lastMessageSeq > 0;
  const listed = isGroup
    ? shared?.groupDeleted !== true && doc.membership !== undefined && (hasMessage || doc.clearedUpTo === 0)
    : hasMessage;
  return {
    ...rest,
    ...(lastMessage !== undefined ? { lastMessage } : {}),
    lastMessageSeq,
    unreadCount,
    createdAt,
    updatedAt: lastSentAt ?? (isGroup ? (doc.joinedAt ?? createdAt) : createdAt),
    listed,
    sharedRev,
  };
}
