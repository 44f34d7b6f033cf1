import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { conversationDeletionDecider } from './conversationDeletion.js';
import { conversationMarksDecider } from './conversationMarks.js';
import type { ConversationMarksEvent } from './conversationMarks.js';
import type { ConversationRef } from './pins/userPins.js';

const spec = specFor(conversationMarksDecider);
const ref: ConversationRef = { uid: 'alice', conversationId: 'group_g', conversationType: 'group', conversationWith: 'g' };
const read = (messageId: number): ConversationMarksEvent => ({ type: 'ConversationRead', data: { ...ref, messageId: String(messageId), readAt: 9 } });
const unread = (messageId: number): ConversationMarksEvent => ({
  type: 'ConversationMarkedUnread',
  data: { ...ref, messageId: String(messageId), markedAt: 9 },
});
const delivered = (messageId: number): ConversationMarksEvent => ({
  type: 'ConversationDelivered',
  data: { ...ref, messageId: String(messageId), deliveredAt: 9 },
});
const tagged = (...tags: string[]): ConversationMarksEvent => ({ type: 'ConversationUpdated', data: { ...ref, tags, updatedAt: 9 } });
const reset = (upTo: number): ConversationMarksEvent => ({
  type: 'ConversationReset',
  data: { ...ref, upToMessageId: String(upTo), deleteMessagesPermanently: false, resetAt: 9 },
});

describe('conversation marks decider', () => {
  it('marks read up to a message, only forwards', () => {
    spec.given([]).when({ type: 'MarkRead', conversation: ref, messageId: 5, now: 9 }).then([read(5)]);
    spec.given([read(5)]).when({ type: 'MarkRead', conversation: ref, messageId: 5, now: 9 }).thenNothingHappens();
    spec.given([read(5)]).when({ type: 'MarkRead', conversation: ref, messageId: 3, now: 9 }).thenNothingHappens();
    spec.given([read(5)]).when({ type: 'MarkRead', conversation: ref, messageId: 8, now: 9 }).then([read(8)]);
  });

  it('marks unread after a message, only backwards', () => {
    spec.given([read(8)]).when({ type: 'MarkUnread', conversation: ref, messageId: 3, now: 9 }).then([unread(3)]);
    spec.given([read(8)]).when({ type: 'MarkUnread', conversation: ref, messageId: 8, now: 9 }).thenNothingHappens();
    spec.given([]).when({ type: 'MarkUnread', conversation: ref, messageId: 3, now: 9 }).thenNothingHappens();
    spec.given([read(8), unread(3)]).when({ type: 'MarkRead', conversation: ref, messageId: 4, now: 9 }).then([read(4)]);
  });

  it('marks delivered only past what was delivered or read', () => {
    spec.given([]).when({ type: 'MarkDelivered', conversation: ref, messageId: 4, now: 9 }).then([delivered(4)]);
    spec.given([read(6)]).when({ type: 'MarkDelivered', conversation: ref, messageId: 4, now: 9 }).thenNothingHappens();
    spec.given([delivered(4)]).when({ type: 'MarkDelivered', conversation: ref, messageId: 4, now: 9 }).thenNothingHappens();
  });

  it('replaces tags, and writes nothing for the same list', () => {
    spec.given([]).when({ type: 'UpdateTags', conversation: ref, tags: ['x', 'y'], now: 9 }).then([tagged('x', 'y')]);
    spec.given([tagged('x', 'y')]).when({ type: 'UpdateTags', conversation: ref, tags: ['x', 'y'], now: 9 }).thenNothingHappens();
    spec.given([tagged('x')]).when({ type: 'UpdateTags', conversation: ref, tags: [], now: 9 }).then([tagged()]);
  });

  it('resets up to the newest message once', () => {
    const command = { type: 'Reset' as const, conversation: ref, upToMessageId: 7, deleteMessagesPermanently: false, now: 9 };
    spec.given([]).when(command).then([reset(7)]);
    spec.given([reset(7)]).when(command).thenNothingHappens();
  });
});

describe('conversation deletion decider', () => {
  const deletion = specFor(conversationDeletionDecider);
  const command = { type: 'DeleteConversation' as const, conversationId: 'a_user_b', conversationType: 'user' as const, upToMessageId: 4, deletedBy: 'a', now: 9 };
  const deleted = (upTo: number) => ({
    type: 'ConversationDeleted' as const,
    data: { conversationId: 'a_user_b', conversationType: 'user' as const, upToMessageId: String(upTo), deletedBy: 'a', deletedAt: 9 },
  });

  it('deletes up to the newest message for everyone, once', () => {
    deletion.given([]).when(command).then([deleted(4)]);
    deletion.given([deleted(4)]).when(command).thenNothingHappens();
    deletion.given([deleted(2)]).when(command).then([deleted(4)]);
  });
});
