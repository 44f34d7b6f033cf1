import { conversationReceiptEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { ReceiptFact } from '../../domain/usageMetrics/usageMetrics.js';

/**
 * One document per read or delivery mark, kept for the message metrics (`GET /stats/messages` counts
 * receipts per five-minute bucket). Keyed by the event's id, so a redelivered event lands on the same
 * document and is counted once; a mark that moves back (`ConversationMarkedUnread`) is no receipt.
 */
export interface ReceiptFactDoc extends ReceiptFact {
  appId: string;
}

type Handled = EventOf<(typeof conversationReceiptEventTypes)[number]>;

export const receiptFactsProjection: Projection<ReceiptFactDoc, Handled> = {
  name: 'receipt_facts',
  eventTypes: conversationReceiptEventTypes,
  documentIds: (event) => (event.type === 'ConversationMarkedUnread' ? [] : [`receipt:${event.appId}:${event.id}`]),
  // Written once and never changed: no position to keep.
  sourceOf: () => null,
  creates: () => true,
  evolve(doc, event) {
    if (doc) return doc;
    switch (event.type) {
      case 'ConversationRead':
        return { appId: event.appId, kind: 'read', at: event.data.readAt };
      case 'ConversationDelivered':
        return { appId: event.appId, kind: 'delivered', at: event.data.deliveredAt };
      case 'ConversationMarkedUnread':
        return null;
    }
  },
};
