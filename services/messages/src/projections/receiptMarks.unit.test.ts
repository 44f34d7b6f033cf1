import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { applyInMemory } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { receiptMarksId, receiptMarksProjection } from './receiptMarks.js';
import type { ReceiptMarksDoc } from './receiptMarks.js';

const ref = { uid: 'bill', conversationId: 'amy_user_bill', conversationType: 'user', conversationWith: 'amy' };
const stream = 'conversation-user:app1:bill:amy_user_bill';
const id = receiptMarksId('app1', 'bill', 'amy_user_bill');

/** Through the real projection runtime, over the in-memory store. */
async function fold(events: ReturnType<typeof envelope>[]): Promise<ReceiptMarksDoc | null> {
  const store = await applyInMemory(receiptMarksProjection, events);
  return store.snapshot<ReceiptMarksDoc>().get(id) ?? null;
}

describe('receipt marks', () => {
  it('reading delivers too; marking unread moves only the read mark; delivery never goes back', async () => {
    const doc = await fold([
      envelope('ConversationDelivered', stream, 1, { ...ref, messageId: '5', deliveredAt: 1 }),
      envelope('ConversationRead', stream, 2, { ...ref, messageId: '8', readAt: 2 }),
      envelope('ConversationMarkedUnread', stream, 3, { ...ref, messageId: '6', markedAt: 3 }),
      envelope('ConversationDelivered', stream, 4, { ...ref, messageId: '7', deliveredAt: 4 }),
      envelope('ConversationPinned', stream, 5, { ...ref, pinnedAt: 5 }),
    ]);
    expect(doc).toEqual({ appId: 'app1', uid: 'bill', conversationId: 'amy_user_bill', readUpTo: 6, deliveredUpTo: 8 });
  });
});
