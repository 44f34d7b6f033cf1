import { z } from 'zod';

/**
 * What one user does to messages for themselves alone: saves (stream `saved-messages:<appId>:<uid>`,
 * at most 100 saved per user), thread subscriptions (stream
 * `thread-subscription:<appId>:<uid>:<parentId>`) and interactions with an interactive message's
 * elements (stream `message-interactions:<appId>:<uid>:<messageId>`). Nobody else sees them.
 */
export const messageSavedV1 = z.object({
  uid: z.string(),
  id: z.string(),
  conversationId: z.string(),
  /** Saving a saved message again re-stamps it. */
  savedAt: z.number().int(),
});

export const messageUnsavedV1 = z.object({
  uid: z.string(),
  id: z.string(),
  conversationId: z.string(),
  unsavedAt: z.number().int(),
});

/** An explicit wish; a later reply by the user or a mention of them in the thread subscribes them again. */
export const threadSubscriptionChangedV1 = z.object({
  uid: z.string(),
  parentId: z.string(),
  conversationId: z.string(),
  at: z.number().int(),
});

/** Element ids of the message this user marked interacted for the first time (never one already marked). */
export const messageInteractedV1 = z.object({
  uid: z.string(),
  id: z.string(),
  conversationId: z.string(),
  elementIds: z.array(z.string()).min(1),
  interactedAt: z.number().int(),
});

export const personalMessageEventSchemas = {
  MessageSaved: { 1: messageSavedV1 },
  MessageUnsaved: { 1: messageUnsavedV1 },
  ThreadSubscribed: { 1: threadSubscriptionChangedV1 },
  ThreadUnsubscribed: { 1: threadSubscriptionChangedV1 },
  MessageInteracted: { 1: messageInteractedV1 },
} as const;

export const savedMessageEventTypes = ['MessageSaved', 'MessageUnsaved'] as const;
export const threadSubscriptionEventTypes = ['ThreadSubscribed', 'ThreadUnsubscribed'] as const;
export const messageInteractionEventTypes = ['MessageInteracted'] as const;

export type MessageSaved = z.infer<typeof messageSavedV1>;
export type MessageUnsaved = z.infer<typeof messageUnsavedV1>;
export type ThreadSubscriptionChanged = z.infer<typeof threadSubscriptionChangedV1>;
export type MessageInteracted = z.infer<typeof messageInteractedV1>;

/** What makes a user follow a thread or stop: their explicit wishes, and replies (which subscribe the replier and whoever they mention). */
export const threadFollowingEventTypes = ['ThreadSubscribed', 'ThreadUnsubscribed', 'MessageSent'] as const;
