import { evolveMessageDocument, messageDocId, messageEventTypes } from '@chat/contracts';
import type { MessageDoc, MessageDocumentEvent, StoredReaction } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { MessageFacts } from '../domain/conversationLog.js';

// The document, its fold and its view are published in @chat/contracts (ADR 0069); this file stores it.
export type { MessageDoc, StoredReaction };
export { docOfSent, messageDocId } from '@chat/contracts';

type Handled = MessageDocumentEvent;

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
  evolve: evolveMessageDocument,
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
