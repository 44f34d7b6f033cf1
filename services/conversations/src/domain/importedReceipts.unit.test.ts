import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { importedReceiptsOf } from './importedReceipts.js';

function sent(id: number, sender: string, receiver: string, extra: Record<string, unknown> = {}, receiverType = 'user') {
  const conversationId = receiverType === 'user' ? [sender, receiver].sort().join('_user_') : `group_${receiver}`;
  return testEnvelope('MessageSent', `messages:${conversationId}`, id, {
    id: String(id),
    conversationId,
    sender,
    receiver,
    receiverType,
    category: 'message',
    type: 'text',
    data: { text: 'x' },
    sentAt: 100 + id,
    ...extra,
  });
}

describe('importedReceiptsOf', () => {
  it('keeps the furthest read and delivered receipt per receiver and conversation, and only of imported one-on-one messages', () => {
    const receipts = importedReceiptsOf([
      sent(1, 'ann', 'bob', { imported: true, readAt: 500 }),
      sent(3, 'ann', 'bob', { imported: true, readAt: 510 }),
      sent(2, 'ann', 'bob', { imported: true, readAt: 505 }),
      sent(4, 'ann', 'bob', { imported: true, deliveredAt: 520 }),
      sent(5, 'bob', 'ann', { imported: true, deliveredAt: 530 }),
      // Sent live (a receipt would come from the receiver), and a group message: no marks.
      sent(6, 'ann', 'bob', { readAt: 540 }),
      sent(7, 'ann', 'team', { imported: true, readAt: 550 }, 'group'),
    ]);
    expect(receipts.map(({ conversation, mark, messageId, at }) => ({ uid: conversation.uid, with: conversation.conversationWith, mark, messageId, at }))).toEqual([
      { uid: 'bob', with: 'ann', mark: 'read', messageId: 3, at: 510 },
      { uid: 'bob', with: 'ann', mark: 'delivered', messageId: 4, at: 520 },
      { uid: 'ann', with: 'bob', mark: 'delivered', messageId: 5, at: 530 },
    ]);
    expect(receipts[0]?.conversation).toEqual({ uid: 'bob', conversationId: 'ann_user_bob', conversationType: 'user', conversationWith: 'ann' });
  });
});
