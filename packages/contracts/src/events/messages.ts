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
  sentAt: z.number().int(),
});

export const messageEventSchemas = {
  MessageSent: { 1: messageSentV1 },
} as const;

export type UserEntity = z.infer<typeof userEntitySchema>;
export type MessageSent = z.infer<typeof messageSentV1>;
