import { actorOf, parseQuery } from '@chat/http';
import { notificationChannels, notificationProviders, notificationSkipReasons } from '@chat/contracts';
import { Router } from 'express';
import { z } from 'zod';
import type { LogEntry, LogFilter, NotificationReadModels } from '../adapters/readModels.js';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
export const logQuery = z.object({
  messageId: z.string().max(64).optional(),
  from: z.coerce.number().int().min(0).optional(),
  to: z.coerce.number().int().min(0).optional(),
  messageCategory: z.string().max(32).optional(),
  messageType: z.string().max(64).optional(),
  trigger: z.string().max(64).optional(),
  sender: z.string().max(100).optional(),
  receiver: z.string().max(100).optional(),
  receiverType: z.enum(['user', 'group']).optional(),
  /** Ours: the user notified (for a group message, one member). */
  member: z.string().max(100).optional(),
  channel: z.enum(notificationChannels).optional(),
  provider: z.enum(notificationProviders).optional(),
  notificationTriggered: flag.optional(),
  reason: z.enum(notificationSkipReasons).optional(),
  success: flag.optional(),
  affix: z.enum(['prepend', 'append']).default('append'),
  logId: z.string().max(128).optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(25),
  // Reactions do not notify in this deployment; the filters are accepted and match nothing extra.
  reactionId: z.string().max(64).optional(),
  reactionSender: z.string().max(100).optional(),
  reactionReceiver: z.string().max(100).optional(),
});

/** One log entry in CometChat's shape (plus the attempt's status and outcome, ours). */
function entryBody(e: LogEntry) {
  return {
    _id: e._id,
    processingStartedAtMS: e.processingStartedAtMS,
    processingEndedAtMS: e.processingEndedAtMS,
    totalProcessingTimeInMS: e.processingEndedAtMS - e.processingStartedAtMS,
    component: e.channel,
    channel: e.channel,
    provider: e.provider ?? '',
    providerId: e.providerId ?? '',
    messageId: e.messageId,
    messageCategory: e.messageCategory,
    messageType: e.messageType,
    trigger: e.trigger,
    messageSentAtMS: e.messageSentAt,
    sender: e.sender,
    receiver: e.receiver,
    receiverType: e.receiverType,
    member: e.recipient,
    tokenType: e.tokenType ?? '',
    pushToken: e.pushToken ?? '',
    payload: e.payload ?? {},
    notificationTriggered: e.notificationTriggered,
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.notificationTriggered
      ? { success: e.success === true, attempt: e.attempt, outcome: e.outcome, statusCode: e.statusCode ?? null, error: e.error ?? null, response: e.responsePrefix ?? '' }
      : {}),
  };
}

/** `GET /notifications/v1/logs`: every decision not to notify, and every provider call. */
export function logRouter(readModels: NotificationReadModels): Router {
  const router = Router();
  router.get('/v3/notifications/v1/logs', async (req, res) => {
    const { appId } = actorOf(req);
    const q = parseQuery(logQuery, req.query);
    const { affix, logId, limit } = q;
    const filter: LogFilter = {
      messageId: q.messageId,
      messageCategory: q.messageCategory,
      messageType: q.messageType,
      trigger: q.trigger,
      sender: q.sender,
      receiver: q.receiver,
      receiverType: q.receiverType,
      recipient: q.member,
      channel: q.channel,
      provider: q.provider,
      reason: q.reason,
      notificationTriggered: q.notificationTriggered,
      success: q.success,
      from: q.from,
      to: q.to,
    };
    const entries = await readModels.listLogs(
      appId,
      filter,
      { limit, ...(logId !== undefined ? (affix === 'append' ? { after: logId } : { before: logId }) : {}) },
    );
    const first = entries[0];
    const last = entries.at(-1);
    res.json({
      data: entries.map(entryBody),
      meta: {
        ...(first ? { previous: { affix: 'prepend', logId: first._id, messageId: first.messageId } } : {}),
        current: { limit, count: entries.length },
        ...(last && entries.length === limit ? { next: { affix: 'append', logId: last._id, messageId: last.messageId } } : {}),
      },
    });
  });
  return router;
}
