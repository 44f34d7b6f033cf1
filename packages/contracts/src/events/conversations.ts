import { z } from 'zod';

const conversationRef = {
  uid: z.string(),
  conversationId: z.string(),
  conversationType: z.enum(['user', 'group']),
  /** The peer: the other user's uid, or the group's guid. */
  conversationWith: z.string(),
};

export const conversationPinnedV1 = z.object({ ...conversationRef, pinnedAt: z.number().int() });
export const conversationUnpinnedV1 = z.object(conversationRef);

export const globalPinSchema = z.object({
  conversationType: z.enum(['user', 'group']),
  /** uid (user pin: the conversation *with* that user, for every user) or guid. */
  conversationWith: z.string(),
  pinnedAt: z.number().int(),
});

/** The app-wide ("global", `pinnedBy: app_system`) list, replaced as a whole, in display order. */
export const globalPinnedConversationsReplacedV1 = z.object({
  pinnedConversations: z.array(globalPinSchema).max(5),
});

/**
 * One user's marks on one conversation, on stream `conversation-user:<appId>:<uid>:<conversationId>`.
 * `messageId` is the numeric message id as a string (ids grow per app).
 */
/** Everything up to and including `messageId` is read by `uid` (read implies delivered). */
export const conversationReadV1 = z.object({ ...conversationRef, messageId: z.string(), readAt: z.number().int() });
/** Messages after `messageId` are unread again for `uid`; the read marker moves back to it. */
export const conversationMarkedUnreadV1 = z.object({ ...conversationRef, messageId: z.string(), markedAt: z.number().int() });
/** Everything up to and including `messageId` was delivered to `uid`. */
export const conversationDeliveredV1 = z.object({ ...conversationRef, messageId: z.string(), deliveredAt: z.number().int() });
/** The user's own attributes of the conversation (today: tags), replaced as a whole. */
export const conversationUpdatedV1 = z.object({ ...conversationRef, tags: z.array(z.string()), updatedAt: z.number().int() });
/**
 * The user deleted (reset) the conversation for themself: messages up to `upToMessageId` no longer
 * show for `uid`; a newer message brings the conversation back. `deleteMessagesPermanently` is the
 * client's request, for the messages service to act on.
 */
export const conversationResetV1 = z.object({
  ...conversationRef,
  upToMessageId: z.string(),
  deleteMessagesPermanently: z.boolean(),
  resetAt: z.number().int(),
});
/**
 * The conversation was deleted for every participant (deprecated `DELETE /conversations/{id}`), on
 * stream `conversation:<appId>:<conversationId>`: messages up to `upToMessageId` no longer show for anyone.
 */
export const conversationDeletedV1 = z.object({
  conversationId: z.string(),
  conversationType: z.enum(['user', 'group']),
  upToMessageId: z.string(),
  deletedBy: z.string(),
  deletedAt: z.number().int(),
});

/** The app-wide pinned conversations (one list per app). */
export const globalPinEventTypes = ['GlobalPinnedConversationsReplaced'] as const;

export const conversationEventSchemas = {
  ConversationPinned: { 1: conversationPinnedV1 },
  ConversationUnpinned: { 1: conversationUnpinnedV1 },
  GlobalPinnedConversationsReplaced: { 1: globalPinnedConversationsReplacedV1 },
  ConversationRead: { 1: conversationReadV1 },
  ConversationMarkedUnread: { 1: conversationMarkedUnreadV1 },
  ConversationDelivered: { 1: conversationDeliveredV1 },
  ConversationUpdated: { 1: conversationUpdatedV1 },
  ConversationReset: { 1: conversationResetV1 },
  ConversationDeleted: { 1: conversationDeletedV1 },
} as const;

export type ConversationPinned = z.infer<typeof conversationPinnedV1>;
export type ConversationUnpinned = z.infer<typeof conversationUnpinnedV1>;
export type GlobalPin = z.infer<typeof globalPinSchema>;
export type GlobalPinnedConversationsReplaced = z.infer<typeof globalPinnedConversationsReplacedV1>;
export type ConversationRead = z.infer<typeof conversationReadV1>;
export type ConversationMarkedUnread = z.infer<typeof conversationMarkedUnreadV1>;
export type ConversationDelivered = z.infer<typeof conversationDeliveredV1>;
export type ConversationUpdated = z.infer<typeof conversationUpdatedV1>;
export type ConversationReset = z.infer<typeof conversationResetV1>;
export type ConversationDeleted = z.infer<typeof conversationDeletedV1>;

/** One user's marks on one conversation (stream `conversation-user:<appId>:<uid>:<conversationId>`). */
export const conversationMarkEventTypes = [
  'ConversationRead',
  'ConversationMarkedUnread',
  'ConversationDelivered',
  'ConversationUpdated',
  'ConversationReset',
] as const;

/** How far one user has read and received a conversation: its receipts. */
export const conversationReceiptEventTypes = ['ConversationRead', 'ConversationMarkedUnread', 'ConversationDelivered'] as const;

/** One user's own pins (stream `conversation-pins:<appId>:<uid>`). */
export const conversationPinEventTypes = ['ConversationPinned', 'ConversationUnpinned'] as const;

/** A conversation deleted for every participant (stream `conversation:<appId>:<conversationId>`). */
export const conversationDeletionEventTypes = ['ConversationDeleted'] as const;
