import { testEnvelope } from '@chat/eventsourcing/testing';
import type { KnownEvent } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { triggerOf, triggerOfType, webhookBodies, webhookBody } from './triggers.js';

const message = { id: '7', conversationId: 'a_user_b', sender: 'a', receiver: 'b', receiverType: 'user', type: 'text', data: { text: 'hi' }, sentAt: 1 };

describe('triggers', () => {
  it('maps a sent message to message_sent with CometChat’s payload, but not a group action message', () => {
    const sent = testEnvelope('MessageSent', 's', 1, { ...message, category: 'message' }) as unknown as KnownEvent;
    const match = triggerOf(sent);
    expect(match?.trigger).toBe('message_sent');
    expect(JSON.parse(webhookBody(match!, 'app1', 'us', 'w1'))).toEqual({
      trigger: 'message_sent',
      data: { message: { ...message, category: 'message' } },
      appId: 'app1',
      region: 'us',
      webhook: 'w1',
    });
    expect(triggerOf(testEnvelope('MessageSent', 's', 1, { ...message, category: 'action' }) as unknown as KnownEvent)).toBeNull();
  });

  it('maps receipts, group changes and blocks, and ignores what has no trigger', () => {
    const read = testEnvelope('ConversationRead', 's', 1, { uid: 'b', conversationId: 'a_user_b', conversationType: 'user', conversationWith: 'a', messageId: '7', readAt: 5 });
    expect(triggerOf(read as unknown as KnownEvent)).toEqual({
      trigger: 'message_read_receipt',
      data: { messageId: '7', conversationId: 'a_user_b', receiverType: 'user', receiver: 'a', uid: 'b', receiptType: 'read', readAt: 5 },
    });
    expect(triggerOf(testEnvelope('GroupMemberLeft', 's', 1, { guid: 'g', uid: 'u', leftAt: 1, membersCount: 2 }) as unknown as KnownEvent)?.trigger).toBe('group_member_left');
    expect(triggerOf(testEnvelope('UsersBlocked', 's', 1, { uid: 'u', blockedUids: ['v'], blockedAt: 1 }) as unknown as KnownEvent)?.trigger).toBe('user_blocked');
    expect(triggerOf(testEnvelope('UserCreated', 's', 1, { uid: 'u' }) as unknown as KnownEvent)).toBeNull();
  });

  it('names from the type alone the trigger an event may raise, and none for other types', () => {
    expect(triggerOfType('MessageSent')).toBe('message_sent');
    expect(triggerOfType('ConversationRead')).toBe('message_read_receipt');
    expect(triggerOfType('UsersUnblocked')).toBe('user_unblocked');
    expect(triggerOfType('UserCreated')).toBeNull();
    expect(triggerOfType('toString')).toBeNull();
    expect(triggerOfType('')).toBeNull();
  });

  it('writes each webhook\'s body as exactly the text JSON.stringify gives the envelope (the signature covers it)', () => {
    const data = { message: { ...message, category: 'message', data: { text: 'quote " backslash \\ é 😀 \u2028', n: [1, 2.5, null], empty: {} } } };
    const bodyFor = webhookBodies({ trigger: 'message_sent', data }, 'app "1"', 'eu');
    for (const webhookId of ['w1', 'wé"\\', '']) {
      expect(bodyFor(webhookId)).toBe(JSON.stringify({ trigger: 'message_sent', data, appId: 'app "1"', region: 'eu', webhook: webhookId }));
    }
  });
});
