import { z } from 'zod';

const epochSeconds = z.number().int();

/**
 * A message as REST returns it (`messageView`): the response schema of the messages routes' OpenAPI
 * description and the `data` of a realtime `message` frame, one schema for both so they cannot drift.
 * Loose: the fields a view always writes are required, the rest typed where a view sets them.
 */
export const messageResourceSchema = z.looseObject({
  id: z.string(),
  conversationId: z.string(),
  sender: z.string(),
  receiverType: z.enum(['user', 'group']),
  receiver: z.string(),
  category: z.string(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()).optional(),
  muid: z.string().optional(),
  parentId: z.string().optional(),
  quotedMessageId: z.string().optional(),
  mentionedUids: z.array(z.string()).optional(),
  mentionedUsers: z.array(z.unknown()).optional(),
  replyCount: z.number().int().optional(),
  sentAt: epochSeconds,
  deliveredAt: epochSeconds.optional(),
  readAt: epochSeconds.optional(),
  editedAt: epochSeconds.optional(),
  editedBy: z.string().optional(),
  deletedAt: epochSeconds.optional(),
  deletedBy: z.string().optional(),
  pinnedAt: epochSeconds.optional(),
  pinnedBy: z.string().optional(),
  updatedAt: epochSeconds,
});
export type MessageResource = z.infer<typeof messageResourceSchema>;
