import { ApiError } from '@chat/contracts';
import { actingUid, actorOf, parseWith, requestIdOf } from '@chat/http';
import { Router } from 'express';
import { z } from 'zod';
import type { MessagesApp } from '../app/messages.js';

/** CometChat: a message, metadata included, is at most 65,536 characters of JSON. */
const MAX_MESSAGE_CHARS = 65_536;

const sendMessageSchema = z.object({
  receiver: z.string().trim().min(1, 'receiver is required').max(100),
  receiverType: z.enum(['user', 'group']),
  category: z.literal('message', 'only category "message" is supported').default('message'),
  type: z.literal('text', 'only type "text" is supported').default('text'),
  data: z.object({
    text: z.string().min(1, 'text must not be empty'),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  tags: z.array(z.string().trim().min(1).max(100)).max(25).optional(),
  muid: z.string().max(100).optional(),
});

function codeForDataProblem(body: unknown): 'ERR_EMPTY_MESSAGE_TEXT' | 'ERR_INVALID_MESSAGE_TEXT' | 'ERR_INVALID_MESSAGE_DATA' {
  const data = (body as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'ERR_INVALID_MESSAGE_DATA';
  const text = (data as { text?: unknown }).text;
  if (text === undefined || text === '') return 'ERR_EMPTY_MESSAGE_TEXT';
  if (typeof text !== 'string') return 'ERR_INVALID_MESSAGE_TEXT';
  return 'ERR_INVALID_MESSAGE_DATA';
}

export function messagesRouter(app: MessagesApp): Router {
  const router = Router();

  router.post('/v3/messages', async (req, res) => {
    const actor = actorOf(req);
    const sender = actingUid(actor);
    const body: unknown = req.body ?? null;
    if (JSON.stringify(body).length > MAX_MESSAGE_CHARS) {
      throw new ApiError('ERR_PAYLOAD_TOO_LARGE', `A message is at most ${MAX_MESSAGE_CHARS} characters of JSON.`);
    }
    const input = parseWith(sendMessageSchema, body, {
      receiver: 'ERR_EMPTY_RECEIVER',
      receiverType: 'ERR_INVALID_RECEIVER_TYPE',
      category: 'ERR_INVALID_MESSAGE_CATEGORY',
      type: 'ERR_INVALID_MESSAGE_TYPE',
      data: codeForDataProblem(body),
    });
    if (input.receiverType === 'group') {
      // Groups arrive with the groups issue; until then no guid exists in any app.
      throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${input.receiver} does not exist.`);
    }
    const message = await app.sendTextMessage(
      { actor, requestId: requestIdOf(req) },
      {
        sender,
        receiver: input.receiver.toLowerCase(),
        receiverType: 'user',
        category: input.category,
        type: input.type,
        text: input.data.text,
        ...(input.data.metadata !== undefined ? { metadata: input.data.metadata } : {}),
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        ...(input.muid !== undefined ? { muid: input.muid } : {}),
      },
    );
    res.json({ data: { ...message, updatedAt: message.sentAt } });
  });

  return router;
}
