import { ApiError } from '@chat/contracts';
import { pagination, parseQuery, parseWith, requireManagementCaller } from '@chat/http';
import { Router } from 'express';
import { z } from 'zod';
import type { WebhookReadModels } from '../adapters/readModels.js';
import type { Redelivery } from '../app/redelivery.js';
import type { DeliveryDocument } from '../domain/delivery.js';

export const listQuery = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  /** Epoch seconds: deliveries queued at or after it. */
  since: z.coerce.number().int().min(0).optional(),
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
});

export const bulkBody = z
  .object({
    /** Epoch seconds. */
    since: z.number().int().min(0).optional(),
    /** A `position` from the delivery log. */
    fromPosition: z.number().int().min(0).optional(),
  })
  .refine((b) => (b.since === undefined) !== (b.fromPosition === undefined), { message: 'exactly one of since and fromPosition', path: ['since'] });

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.floor(ms / 1000));

/** One log entry: what was sent, how often, and what the receiver last answered (a prefix). */
function deliveryBody(d: DeliveryDocument) {
  return {
    id: d.deliveryId,
    trigger: d.trigger,
    eventId: d.eventId,
    status: d.status,
    attempts: d.attempts,
    responseCode: d.responseCode ?? null,
    latencyMs: d.latencyMs ?? null,
    error: d.error ?? null,
    responseBody: d.responsePrefix ?? null,
    position: d.queuedAt,
    createdAt: seconds(d.queuedAt),
    lastAttemptAt: seconds(d.lastAttemptAt) ?? null,
    deliveredAt: seconds(d.deliveredAt) ?? null,
    nextAttemptAt: seconds(d.nextAttemptAt) ?? null,
  };
}

/** Our extension of CometChat's webhook API, served by the delivery process (docs/behaviour/management.md). */
export function deliveriesRouter(readModels: WebhookReadModels, redelivery: Redelivery): Router {
  const router = Router();
  router.use('/apps/:appId/webhooks', requireManagementCaller);

  router.get('/apps/:appId/webhooks/:webhookId/deliveries', async (req, res) => {
    const { appId, webhookId } = req.params;
    const { status, since, ...page } = parseQuery(listQuery, req.query);
    const webhook = await redelivery.requireWebhook(appId, webhookId);
    const fromQueuedAt = since === undefined ? undefined : since * 1000;
    const { items, total } = await readModels.listDeliveries(appId, webhookId, { status, fromQueuedAt }, page);
    res.json({
      data: items.map(deliveryBody),
      meta: {
        pagination: pagination(total, items.length, page.perPage, page.page),
        // What the delivery process currently knows of the webhook (it learns changes from events).
        webhook: { id: webhook.webhookId, enabled: webhook.enabled, triggers: webhook.triggers },
      },
    });
  });

  router.post('/apps/:appId/webhooks/:webhookId/deliveries/:deliveryId/redeliver', async (req, res) => {
    const { appId, webhookId, deliveryId } = req.params;
    res.json({ data: deliveryBody(await redelivery.redeliver(appId, webhookId, deliveryId)) });
  });

  router.post('/apps/:appId/webhooks/:webhookId/redeliver', async (req, res) => {
    const { appId, webhookId } = req.params;
    const body = parseWith(bulkBody, req.body ?? {});
    const fromQueuedAt = body.since !== undefined ? body.since * 1000 : body.fromPosition;
    if (fromQueuedAt === undefined) throw new ApiError('ERR_BAD_REQUEST', 'since: exactly one of since and fromPosition');
    const count = await redelivery.redeliverSince(appId, webhookId, fromQueuedAt);
    res.json({ data: { success: true, redelivered: count } });
  });
  return router;
}
