import { messageEventTypes } from '@chat/contracts';
import type { EventOf, MessageSent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { MessageFacts } from '../domain/conversationLog.js';
import type { MessageDoc, StoredReaction } from '../domain/messageDocument.js';

// The document's shape is the domain's (the view renders it); this file folds events into it.
export type { MessageDoc, StoredReaction };

type Handled = EventOf<(typeof messageEventTypes)[number]>;

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

function evolveMessage(doc: MessageDoc | null, event: Handled, documentId: string): MessageDoc | null {
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

/** Every message of the app, from this service's own events. */
export const messagesProjection: Projection<MessageDoc, Handled> = {
  name: 'messages',
  eventTypes: messageEventTypes,
  documentIds(event) {
    const own = messageDocId(event.appId, event.data.id);
    if (event.type === 'MessageSent' && event.data.parentId !== undefined) {
      return [own, messageDocId(event.appId, event.data.parentId)];
    }
    return [own];
  },
  // Message ids are allocated once: a new message's document cannot exist unless this is a redelivery.
  creates: (event, documentId) => event.type === 'MessageSent' && documentId === messageDocId(event.appId, event.data.id),
  evolve: evolveMessage,
};

/** The facts a decision about a stored message needs. */
export function factsOf(doc: MessageDoc): MessageFacts {
  return {
    id: doc.id,
    conversationId: doc.conversationId,
    sender: doc.sender,
    category: doc.category,
    ...(doc.parentId !== undefined ? { parentId: doc.parentId } : {}),
    deleted: doc.isDeleted,
    reactions: doc.reactions.map((r) => ({ reaction: r.reaction, uid: r.uid })),
  };
}
