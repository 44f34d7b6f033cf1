import { keywordListV1, messageResourceSchema, moderationReasonV1, moderationRuleV1 } from '@chat/contracts';
import { z } from 'zod';

/*
 * The resources this service answers with, as its views render them (`messageView` in @chat/contracts,
 * the moderation and agent routes): the response side of the OpenAPI
 * description (openapi.ts). Loose objects: the fields a view always writes are required, the rest typed.
 */

const epoch = z.number().int();

/** `messageView` (and the action message an edit or delete answers with): the contract's schema. */
export const messageResource = messageResourceSchema;

/** One user's reaction to a message. */
export const reactionResource = z.looseObject({
  id: z.string(),
  messageId: z.string(),
  reaction: z.string(),
  uid: z.string(),
  reactedAt: epoch,
  reactedBy: z.looseObject({ uid: z.string() }),
});

/** `reasonView`: the stored reason as the events carry it. */
export const reasonResource = moderationReasonV1.loose();

/** `ruleView`: the stored rule without its revision number; `active` tells a revision list's current one. */
export const ruleResource = moderationRuleV1.omit({ revision: true }).extend({ active: z.boolean() }).loose();

/** `keywordListView`. */
export const keywordListResource = keywordListV1.extend({ active: z.boolean() }).loose();

/** An entry of a review queue (`entryView`): the message (in full while it can be shown), its queue and state. */
export const reviewEntryResource = z.looseObject({
  message: z.looseObject({ id: z.string(), conversationId: z.string() }),
  queue: z.enum(['flagged', 'blocked']),
  status: z.string(),
  createdAt: epoch,
  updatedAt: epoch,
});

/** The `{success, message}` a delete of a setting answers, inside `data`. */
export const settingDeleted = z.object({ success: z.literal(true), message: z.string() });

const isoTime = z.string();

/** `agentView`: header values are shown as asterisks. */
export const agentResource = z.looseObject({
  uid: z.string(),
  appId: z.string(),
  name: z.string(),
  icon: z.string().optional(),
  isActive: z.boolean(),
  integrateWith: z.string(),
  integrationType: z.string(),
  integrationMeta: z.looseObject({ url: z.string(), headers: z.record(z.string(), z.string()) }),
  tools: z.array(z.unknown()),
  actions: z.array(z.unknown()),
  deletedAt: z.null(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

/** `toolView`. */
export const toolResource = z.looseObject({
  _id: z.string(),
  appId: z.string(),
  name: z.string(),
  type: z.literal('action'),
  tool: z.looseObject({ name: z.string() }),
  createdAt: isoTime,
  updatedAt: isoTime,
});

export const integrationResource = z.looseObject({ id: z.string(), name: z.string(), integrationType: z.string() });

/** The agent routes' acknowledgement: not inside `data`, as CometChat's agent API answers. */
export const agentAcknowledgement = z.object({ success: z.literal(true) });

/** A save's answer: the message with `savedAt` (an unsave's has none); only the id when the message is not projected yet. */
export const savedMessageAnswer = z.union([messageResource.extend({ savedAt: epoch.optional() }), z.object({ id: z.string() })]);

/** `PATCH /messages/{id}/interacted`: CometChat's acknowledgement, and the elements this user has marked so far. */
export const interactedAnswer = z.looseObject({
  success: z.literal(true),
  message: z.string(),
  interactions: z.array(z.object({ elementId: z.string(), interactedAt: epoch })),
});

/** One row of `GET /threads`: the parent message, its reply count and newest reply. */
export const threadRowResource = z.looseObject({
  parentMessageId: z.string(),
  parentMessage: messageResource,
  replyCount: z.number().int().min(0),
  lastReply: messageResource.optional(),
  subscribed: z.literal(true).optional(),
  updatedAt: epoch,
  conversationId: z.string(),
  receiverType: z.enum(['user', 'group']),
  receiverId: z.string(),
});

/** `GET /stats`: the range's usage, the range echoed in the unit it was given. */
export const usageMetricsAnswer = z.object({
  metrics: z.object({
    audio_minutes: z.number().int().min(0),
    video_minutes: z.number().int().min(0),
    recorded_minutes: z.number().int().min(0),
    active_users: z.number().int().min(0),
    concurrent_users: z.number().int().min(0),
  }),
  time_range: z.object({ fromDate: z.number(), toDate: z.number() }),
});

const epochMsText = z.string().regex(/^\d+$/, 'epoch milliseconds as text');

/** `GET /stats/messages`: five-minute buckets, times as epoch-millisecond strings. */
export const messageMetricsAnswer = z.object({
  startTime: epochMsText,
  endTime: epochMsText,
  appId: z.string(),
  dataPoints: z.array(
    z.object({
      messagesSent: z.number().int().min(0),
      readReceipts: z.number().int().min(0),
      deliveryReceipts: z.number().int().min(0),
      startTime: epochMsText,
      endTime: epochMsText,
    }),
  ),
});
