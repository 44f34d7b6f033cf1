import type { EventOf } from './events/registry.js';
import type { MessageSent, messageEventTypes } from './events/messages.js';

export interface StoredReaction {
  /** The id of the event that added it: unique, and the same on every replay. */
  id: string;
  reaction: string;
  uid: string;
  reactedAt: number;
}

/**
 * A message as the API lists it. `data` is the client's JSON as text (ADR 0002); the fields that
 * filters query are kept beside it as plain fields.
 */
export interface MessageDoc {
  appId: string;
  id: string;
  /** The id as a number, for range queries and ordering. */
  seq: number;
  conversationId: string;
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
  category: string;
  type: string;
  data: string;
  tags: string[];
  muid?: string;
  parentId?: string;
  quotedMessageId?: string;
  mentionedUids: string[];
  hasMentions: boolean;
  /** Lower-cased text, for `searchKey`. */
  searchText: string;
  hasAttachments: boolean;
  hasLinks: boolean;
  isReply: boolean;
  sentAt: number;
  updatedAt: number;
  editedAt?: number;
  editedBy?: string;
  deletedAt?: number;
  deletedBy?: string;
  isDeleted: boolean;
  replyCount: number;
  reactions: StoredReaction[];
  hasReactions: boolean;
  /** An imported message's delivery and read times (the caller's). */
  deliveredAt?: number;
  readAt?: number;
  /** Set while the message is pinned in its conversation. */
  pinnedAt?: number;
  pinnedBy?: string;
}

/**
 * The message document is a published shape (ADR 0069): the messages service stores it and renders
 * its REST resource from it, and the realtime service folds the same events into it to push that
 * resource. The fold lives here so that neither service imports the other.
 */
export type MessageDocumentEvent = EventOf<(typeof messageEventTypes)[number]>;

function withoutPin(doc: MessageDoc): MessageDoc {
  const { pinnedAt, pinnedBy, ...rest } = doc;
  void pinnedAt;
  void pinnedBy;
  return rest;
}

export function messageDocId(appId: string, id: string): string {
  return `${appId}:${id}`;
}

const LINK = /\bhttps?:\/\/\S/i;

function textOf(data: Record<string, unknown>): string {
  return typeof data['text'] === 'string' ? data['text'] : '';
}

/** Derived, queryable fields of a message's `data`. */
function contentFields(data: Record<string, unknown>) {
  const text = textOf(data);
  const attachments = data['attachments'];
  return {
    data: JSON.stringify(data),
    searchText: text.toLowerCase(),
    hasAttachments: (Array.isArray(attachments) && attachments.length > 0) || typeof data['url'] === 'string',
    hasLinks: LINK.test(text),
  };
}

/** A just-sent message as stored (also how a send's response is rendered). */
export function docOfSent(appId: string, m: MessageSent): MessageDoc {
  return {
    appId,
    id: m.id,
    seq: Number(m.id),
    conversationId: m.conversationId,
    sender: m.sender,
    receiver: m.receiver,
    receiverType: m.receiverType,
    category: m.category,
    type: m.type,
    ...contentFields(m.data),
    tags: m.tags ?? [],
    ...(m.muid !== undefined ? { muid: m.muid } : {}),
    ...(m.parentId !== undefined ? { parentId: m.parentId } : {}),
    ...(m.quotedMessageId !== undefined ? { quotedMessageId: m.quotedMessageId } : {}),
    mentionedUids: m.mentionedUids ?? [],
    hasMentions: (m.mentionedUids ?? []).length > 0,
    isReply: m.parentId !== undefined,
    sentAt: m.sentAt,
    updatedAt: m.sentAt,
    ...(m.deliveredAt !== undefined ? { deliveredAt: m.deliveredAt } : {}),
    ...(m.readAt !== undefined ? { readAt: m.readAt } : {}),
    isDeleted: false,
    replyCount: 0,
    reactions: [],
    hasReactions: false,
  };
}

function withReactions(doc: MessageDoc, reactions: StoredReaction[]): MessageDoc {
  return { ...doc, reactions, hasReactions: reactions.length > 0 };
}

export function evolveMessageDocument(doc: MessageDoc | null, event: MessageDocumentEvent, documentId: string): MessageDoc | null {
  switch (event.type) {
    case 'MessageSent': {
      const m = event.data;
      if (documentId === messageDocId(event.appId, m.id)) return docOfSent(event.appId, m);
      // The thread's first message counts its replies.
      return doc ? { ...doc, replyCount: doc.replyCount + 1 } : null;
    }
    case 'MessageEdited': {
      if (!doc) return null;
      const e = event.data;
      const edited: MessageDoc = {
        ...doc,
        ...contentFields(e.data),
        ...(e.tags !== undefined ? { tags: e.tags } : {}),
        editedAt: e.editedAt,
        updatedAt: e.editedAt,
      };
      if (e.editedBy !== undefined) edited.editedBy = e.editedBy;
      return edited;
    }
    case 'MessageDeleted': {
      if (!doc || event.data.permanent) return null;
      const d = event.data;
      // A deleted message is no longer pinned (the conversation's pin count forgets it too).
      return {
        ...withoutPin(doc),
        deletedAt: d.deletedAt,
        ...(d.deletedBy !== undefined ? { deletedBy: d.deletedBy } : {}),
        isDeleted: true,
        updatedAt: d.deletedAt,
      };
    }
    case 'MessageReactionAdded': {
      if (!doc) return null;
      const r = event.data;
      if (doc.reactions.some((x) => x.reaction === r.reaction && x.uid === r.uid)) return doc;
      return withReactions(doc, [...doc.reactions, { id: event.id, reaction: r.reaction, uid: r.uid, reactedAt: r.reactedAt }]);
    }
    case 'MessageReactionRemoved': {
      if (!doc) return null;
      const r = event.data;
      return withReactions(doc, doc.reactions.filter((x) => !(x.reaction === r.reaction && x.uid === r.uid)));
    }
    case 'MessagePinned':
      return doc ? { ...doc, pinnedAt: event.data.pinnedAt, pinnedBy: event.data.pinnedBy } : null;
    case 'MessageUnpinned':
      return doc ? withoutPin(doc) : null;
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

