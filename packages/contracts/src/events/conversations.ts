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

export const conversationEventSchemas = {
  ConversationPinned: { 1: conversationPinnedV1 },
  ConversationUnpinned: { 1: conversationUnpinnedV1 },
  GlobalPinnedConversationsReplaced: { 1: globalPinnedConversationsReplacedV1 },
} as const;

export type ConversationPinned = z.infer<typeof conversationPinnedV1>;
export type ConversationUnpinned = z.infer<typeof conversationUnpinnedV1>;
export type GlobalPin = z.infer<typeof globalPinSchema>;
export type GlobalPinnedConversationsReplaced = z.infer<typeof globalPinnedConversationsReplacedV1>;
