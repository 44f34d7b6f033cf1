import { messageTimelineEventTypes } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { editedMessage, messageAsShown, softDeletedMessage } from '../domain/conversationTimeline.js';

export type MessageCopyEvent = Extract<KnownEvent, { type: (typeof messageTimelineEventTypes)[number] }>;

/** A timeline message as the API shows it now: the last message of a reader whose view ends before the newest. */
export interface MessageCopyDoc {
  appId: string;
  conversationId: string;
  /** JSON text (ADR 0002). */
  message: string;
}

export function messageCopyDocId(appId: string, id: string | number): string {
  return `${appId}:${id}`;
}

/**
 * One document per timeline message, inserted when it is sent (grouped with the batch's other new
 * documents) and rewritten only by its own edit or deletion. Readers need it only when the message a
 * user last saw is not the conversation's newest: a former member, or a permanent deletion.
 */
export const messageCopies: Projection<MessageCopyDoc, MessageCopyEvent> = {
  name: 'conversation-message-copies',
  eventTypes: messageTimelineEventTypes,
  documentIds(event: MessageCopyEvent): string[] {
    if (event.type === 'MessageSent' && event.data.parentId !== undefined) return [];
    return [messageCopyDocId(event.appId, event.data.id)];
  },
  creates(event: MessageCopyEvent): boolean {
    return event.type === 'MessageSent';
  },
  evolve(doc: MessageCopyDoc | null, event: MessageCopyEvent): MessageCopyDoc | null {
    switch (event.type) {
      case 'MessageSent':
        return doc ?? { appId: event.appId, conversationId: event.data.conversationId, message: messageAsShown(event.data) };
      case 'MessageEdited':
        return doc ? { ...doc, message: editedMessage(doc.message, event.data) } : null;
      case 'MessageDeleted':
        if (!doc || event.data.permanent) return null;
        return { ...doc, message: softDeletedMessage(doc.message, event.data) };
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
