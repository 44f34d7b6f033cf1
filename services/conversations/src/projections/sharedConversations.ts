import { groupConversationId } from '@chat/contracts';
import type {
  ConversationDeleted,
  EventEnvelope,
  GroupCreated,
  GroupDeleted,
  GroupMemberBanned,
  GroupMemberJoined,
  GroupMemberKicked,
  GroupMemberLeft,
  GroupMembersAdded,
  GroupUpdated,
  MessageDeleted,
  MessageEdited,
  MessageSent,
} from '@chat/contracts';
import type { GroupProfile, LedgerEntry, SharedConversationDoc } from '../domain/conversationView.js';

/** How many messages per conversation the ledger keeps: unread counts are exact up to this many. */
export const LEDGER_LIMIT = 1000;
/** How many of the newest ledger entries keep the whole message (the last message a member may see). */
export const LEDGER_MESSAGES_KEPT = 50;

export type SharedEvent =
  | EventEnvelope<'MessageSent', MessageSent>
  | EventEnvelope<'MessageEdited', MessageEdited>
  | EventEnvelope<'MessageDeleted', MessageDeleted>
  | EventEnvelope<'GroupCreated', GroupCreated>
  | EventEnvelope<'GroupUpdated', GroupUpdated>
  | EventEnvelope<'GroupDeleted', GroupDeleted>
  | EventEnvelope<'GroupMembersAdded', GroupMembersAdded>
  | EventEnvelope<'GroupMemberJoined', GroupMemberJoined>
  | EventEnvelope<'GroupMemberLeft', GroupMemberLeft>
  | EventEnvelope<'GroupMemberKicked', GroupMemberKicked>
  | EventEnvelope<'GroupMemberBanned', GroupMemberBanned>
  | EventEnvelope<'ConversationDeleted', ConversationDeleted>;

const sharedTypes = new Set<string>([
  'MessageSent',
  'MessageEdited',
  'MessageDeleted',
  'GroupCreated',
  'GroupUpdated',
  'GroupDeleted',
  'GroupMembersAdded',
  'GroupMemberJoined',
  'GroupMemberLeft',
  'GroupMemberKicked',
  'GroupMemberBanned',
  'ConversationDeleted',
]);

export function isSharedEvent(event: EventEnvelope): event is SharedEvent {
  return sharedTypes.has(event.type);
}

export function sharedConversationDocId(appId: string, conversationId: string): string {
  return `${appId}:${conversationId}`;
}

/** The conversation a shared-level event belongs to. */
export function conversationOf(event: SharedEvent): string {
  switch (event.type) {
    case 'MessageSent':
    case 'MessageEdited':
    case 'MessageDeleted':
    case 'ConversationDeleted':
      return event.data.conversationId;
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupDeleted':
    case 'GroupMembersAdded':
    case 'GroupMemberJoined':
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return groupConversationId(event.data.guid);
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Thread replies are not part of the conversation's own timeline: never its last message, never unread in it. */
export function isThreadReply(event: EventEnvelope): boolean {
  return event.type === 'MessageSent' && (event.data as MessageSent).parentId !== undefined;
}

export function messageAsShown(message: MessageSent): string {
  return JSON.stringify({
    id: message.id,
    conversationId: message.conversationId,
    sender: message.sender,
    receiverType: message.receiverType,
    receiver: message.receiver,
    category: message.category,
    type: message.type,
    data: message.data,
    ...(message.tags ? { tags: message.tags } : {}),
    ...(message.muid !== undefined ? { muid: message.muid } : {}),
    sentAt: message.sentAt,
    updatedAt: message.sentAt,
  });
}

function patchMessage(entry: LedgerEntry, patch: Record<string, unknown>): LedgerEntry {
  if (entry.message === undefined) return entry;
  return { ...entry, message: JSON.stringify({ ...(JSON.parse(entry.message) as Record<string, unknown>), ...patch }) };
}

function emptyShared(event: SharedEvent, conversationId: string): SharedConversationDoc {
  const at = Math.floor(Date.parse(event.occurredAt) / 1000);
  return {
    appId: event.appId,
    conversationId,
    conversationType: event.type.startsWith('Group') ? 'group' : 'user',
    ledger: [],
    clearedUpTo: 0,
    listed: false,
    lastMessageSeq: 0,
    createdAt: at,
    updatedAt: at,
  };
}

function insertEntry(ledger: readonly LedgerEntry[], entry: LedgerEntry): LedgerEntry[] {
  if (ledger.some((e) => e.id === entry.id)) return [...ledger];
  const next = [...ledger, entry].sort((a, b) => a.id - b.id).slice(-LEDGER_LIMIT);
  const keepFrom = next.length - LEDGER_MESSAGES_KEPT;
  return next.map((e, i) => {
    if (i >= keepFrom || e.message === undefined) return e;
    const { message, ...rest } = e;
    void message;
    return rest;
  });
}

/** Summary fields every reader shares, recomputed from the ledger so they never depend on arrival order. */
function summarize(doc: SharedConversationDoc): SharedConversationDoc {
  const visible = doc.ledger.filter((e) => e.id > doc.clearedUpTo);
  const last = visible.at(-1);
  const { lastMessage, ...rest } = doc;
  void lastMessage;
  const firstSentAt = doc.ledger[0]?.sentAt;
  const createdAt = doc.conversationType === 'group' ? (doc.group?.createdAt ?? doc.createdAt) : Math.min(doc.createdAt, firstSentAt ?? doc.createdAt);
  return {
    ...rest,
    ...(last?.message !== undefined ? { lastMessage: last.message } : {}),
    lastMessageSeq: last?.id ?? 0,
    createdAt,
    updatedAt: last ? last.sentAt : createdAt,
    listed: doc.conversationType === 'group' ? doc.group !== undefined && doc.groupDeleted !== true : last !== undefined,
  };
}

function applyGroupUpdate(group: GroupProfile, update: GroupUpdated): GroupProfile {
  const { changes } = update;
  const next: GroupProfile = { ...group, updatedAt: update.updatedAt };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.type !== undefined) next.type = changes.type;
  if (changes.owner !== undefined) next.owner = changes.owner;
  if (changes.icon !== undefined) next.icon = changes.icon;
  if (changes.description !== undefined) next.description = changes.description;
  if (changes.tags !== undefined) next.tags = changes.tags;
  if (update.updatedBy !== undefined) next.updatedBy = update.updatedBy;
  for (const field of update.removed) {
    if (field === 'icon') delete next.icon;
    if (field === 'description') delete next.description;
    if (field === 'tags') next.tags = [];
  }
  return next;
}

function withMembersCount(doc: SharedConversationDoc, delta: number): SharedConversationDoc {
  if (!doc.group) return doc;
  return { ...doc, group: { ...doc.group, membersCount: Math.max(0, doc.group.membersCount + delta) } };
}

/**
 * The shared document after one event; null when the event creates nothing. Pure. Message events are
 * idempotent by message id on top of the writer's per-stream guard.
 */
export function evolveShared(current: SharedConversationDoc | null, event: SharedEvent): SharedConversationDoc | null {
  const conversationId = conversationOf(event);
  const base = current ?? emptyShared(event, conversationId);
  switch (event.type) {
    case 'MessageSent': {
      const message = event.data;
      if (message.parentId !== undefined) return current;
      const at = Date.parse(event.occurredAt);
      const entry: LedgerEntry = {
        id: Number(message.id) || 0,
        sender: message.sender,
        at,
        sentAt: message.sentAt,
        ...(message.category === 'action' ? { action: true as const } : {}),
        message: messageAsShown(message),
      };
      const participants =
        message.receiverType === 'user' ? [message.sender, message.receiver].sort() : base.participants;
      return summarize({
        ...base,
        conversationType: message.receiverType,
        ...(participants ? { participants } : {}),
        createdAt: current ? base.createdAt : message.sentAt,
        ledger: insertEntry(base.ledger, entry),
      });
    }
    case 'MessageEdited': {
      const { id, data, tags, editedAt, editedBy } = event.data;
      const ledger = base.ledger.map((e) =>
        e.id === Number(id)
          ? patchMessage(e, { data, ...(tags ? { tags } : {}), editedAt, ...(editedBy ? { editedBy } : {}), updatedAt: editedAt })
          : e,
      );
      return current ? summarize({ ...base, ledger }) : null;
    }
    case 'MessageDeleted': {
      const { id, permanent, deletedAt, deletedBy } = event.data;
      const ledger = permanent
        ? base.ledger.filter((e) => e.id !== Number(id))
        : base.ledger.map((e) =>
            e.id === Number(id)
              ? { ...patchMessage(e, { deletedAt, ...(deletedBy ? { deletedBy } : {}), updatedAt: deletedAt }), deleted: true as const }
              : e,
          );
      return current ? summarize({ ...base, ledger }) : null;
    }
    case 'GroupCreated': {
      const g = event.data;
      const group: GroupProfile = {
        guid: g.guid,
        name: g.name,
        type: g.type,
        owner: g.owner,
        ...(g.icon !== undefined ? { icon: g.icon } : {}),
        ...(g.description !== undefined ? { description: g.description } : {}),
        tags: g.tags,
        createdAt: g.createdAt,
        membersCount: 0,
      };
      return summarize({ ...base, conversationType: 'group', group, createdAt: g.createdAt });
    }
    case 'GroupUpdated':
      return base.group ? summarize({ ...base, group: applyGroupUpdate(base.group, event.data) }) : current;
    case 'GroupDeleted':
      return summarize({ ...base, conversationType: 'group', groupDeleted: true });
    case 'GroupMembersAdded':
      return withMembersCount(base, event.data.members.length);
    case 'GroupMemberJoined':
      return withMembersCount(base, 1);
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return withMembersCount(base, -1);
    case 'ConversationDeleted':
      return current ? summarize({ ...base, clearedUpTo: Math.max(base.clearedUpTo, Number(event.data.upToMessageId) || 0) }) : null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}
