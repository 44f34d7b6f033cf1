import { z } from 'zod';

export const userEntitySchema = z.object({
  uid: z.string(),
  name: z.string(),
  avatar: z.string().optional(),
  link: z.string().optional(),
  role: z.string(),
  status: z.string(),
  createdAt: z.number().int(),
  conversationId: z.string().optional(),
});

export const messageSentV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  sender: z.string(),
  receiver: z.string(),
  receiverType: z.enum(['user', 'group']),
  category: z.string(),
  type: z.string(),
  /** The message's `data` as the API shows it, including `entities` snapshotted at send time. */
  data: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()).optional(),
  muid: z.string().optional(),
  /** Set on a thread reply: the id of the message that started the thread. */
  parentId: z.string().optional(),
  quotedMessageId: z.string().optional(),
  mentionedUids: z.array(z.string()).optional(),
  sentAt: z.number().int(),
  /**
   * Set on a `category: action` message made from another service's event (a group membership
   * change): that event's stream and version, the action message's identity for de-duplication.
   */
  sourceEvent: z.object({ streamId: z.string(), version: z.number().int() }).optional(),
  /**
   * Set on a message from a data import: history sent at `sentAt` (the caller's time), so no webhook,
   * push notification or other reaction to a new message fires for it. `muid` is its import id.
   */
  imported: z.literal(true).optional(),
  /** An imported message's delivery and read times as the caller gave them. */
  deliveredAt: z.number().int().optional(),
  readAt: z.number().int().optional(),
});

/** The whole new `data` (not a diff), so a consumer can replace what it shows. */
export const messageEditedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  data: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()).optional(),
  editedBy: z.string().optional(),
  editedAt: z.number().int(),
});

/**
 * Soft delete keeps the message (shown with `deletedAt`/`deletedBy`); `permanent` erases it, and consumers
 * drop every copy they hold.
 */
export const messageDeletedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  sender: z.string(),
  permanent: z.boolean(),
  deletedBy: z.string().optional(),
  deletedAt: z.number().int(),
});

export const messageReactionAddedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  reaction: z.string(),
  uid: z.string(),
  reactedAt: z.number().int(),
});

export const messageReactionRemovedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  reaction: z.string(),
  uid: z.string(),
  removedAt: z.number().int(),
});

/**
 * A message pinned in its conversation, visible to every participant. Pinning an already pinned
 * message again names the newest pinner. `pinnedBy` is a uid, or `app_system` when the app pinned it.
 */
export const messagePinnedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  pinnedBy: z.string(),
  pinnedAt: z.number().int(),
});

/** The message's pin is gone (anyone allowed to pin may unpin, not only the pinner). */
export const messageUnpinnedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  unpinnedBy: z.string(),
  unpinnedAt: z.number().int(),
});

/** Every event of a conversation's message stream. */
export const messageEventTypes = [
  'MessageSent',
  'MessageEdited',
  'MessageDeleted',
  'MessageReactionAdded',
  'MessageReactionRemoved',
  'MessagePinned',
  'MessageUnpinned',
] as const;

export const messageEventSchemas = {
  MessageSent: { 1: messageSentV1 },
  MessageEdited: { 1: messageEditedV1 },
  MessageDeleted: { 1: messageDeletedV1 },
  MessageReactionAdded: { 1: messageReactionAddedV1 },
  MessageReactionRemoved: { 1: messageReactionRemovedV1 },
  MessagePinned: { 1: messagePinnedV1 },
  MessageUnpinned: { 1: messageUnpinnedV1 },
} as const;

export type UserEntity = z.infer<typeof userEntitySchema>;
export type MessageSent = z.infer<typeof messageSentV1>;
export type MessageEdited = z.infer<typeof messageEditedV1>;
export type MessageDeleted = z.infer<typeof messageDeletedV1>;
export type MessageReactionAdded = z.infer<typeof messageReactionAddedV1>;
export type MessageReactionRemoved = z.infer<typeof messageReactionRemovedV1>;
export type MessagePinned = z.infer<typeof messagePinnedV1>;
export type MessageUnpinned = z.infer<typeof messageUnpinnedV1>;

/** What a message does to its conversation's timeline: sent, edited, deleted (reactions are not part of it). */
export const messageTimelineEventTypes = ['MessageSent', 'MessageEdited', 'MessageDeleted'] as const;
