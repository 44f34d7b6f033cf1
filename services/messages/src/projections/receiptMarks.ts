import { conversationReceiptEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/**
 * How far one user has read and received one conversation, learnt from the conversations service's
 * mark events, so the message lists can answer `unread` and `undelivered` for that user. Numbers are
 * message ids (ids grow per app); everything at or below a mark is read (delivered).
 */
export interface ReceiptMarksDoc {
  appId: string;
  uid: string;
  conversationId: string;
  readUpTo: number;
  deliveredUpTo: number;
}

type Handled = EventOf<(typeof conversationReceiptEventTypes)[number]>;

export function receiptMarksId(appId: string, uid: string, conversationId: string): string {
  return `marks:${appId}:${uid}:${conversationId}`;
}

/** The same rule as the conversations service's read model: reading implies delivery; unread moves only the read mark. */
export const receiptMarksProjection: Projection<ReceiptMarksDoc, Handled> = {
  name: 'receipt_marks',
  eventTypes: conversationReceiptEventTypes,
  documentIds: (event) => [receiptMarksId(event.appId, event.data.uid, event.data.conversationId)],
  evolve(doc, event) {
    const { uid, conversationId } = event.data;
    const base = doc ?? { appId: event.appId, uid, conversationId, readUpTo: 0, deliveredUpTo: 0 };
    const upTo = Number(event.data.messageId);
    switch (event.type) {
      case 'ConversationRead':
        return { ...base, readUpTo: upTo, deliveredUpTo: Math.max(base.deliveredUpTo, upTo) };
      case 'ConversationMarkedUnread':
        return { ...base, readUpTo: upTo };
      case 'ConversationDelivered':
        return { ...base, deliveredUpTo: Math.max(base.deliveredUpTo, upTo) };
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
