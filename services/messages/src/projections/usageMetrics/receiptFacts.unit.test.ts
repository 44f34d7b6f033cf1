import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { applyInMemory } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { receiptFactsProjection } from './receiptFacts.js';
import type { ReceiptFactDoc } from './receiptFacts.js';

const ref = { uid: 'bill', conversationId: 'amy_user_bill', conversationType: 'user', conversationWith: 'amy' };
const stream = 'conversation-user:app1:bill:amy_user_bill';

describe('receipt facts', () => {
  it('keeps one fact per read or delivery mark, none for marking unread, and a redelivery counts once', async () => {
    const delivered = envelope('ConversationDelivered', stream, 1, { ...ref, messageId: '5', deliveredAt: 100 });
    const read = envelope('ConversationRead', stream, 2, { ...ref, messageId: '8', readAt: 200 });
    const events = [delivered, read, envelope('ConversationMarkedUnread', stream, 3, { ...ref, messageId: '6', markedAt: 300 }), read];
    const docs = [...(await applyInMemory(receiptFactsProjection, events)).snapshot<ReceiptFactDoc>().values()];
    expect(docs.sort((a, b) => a.at - b.at)).toEqual([
      { appId: 'app1', kind: 'delivered', at: 100 },
      { appId: 'app1', kind: 'read', at: 200 },
    ]);
  });
});
