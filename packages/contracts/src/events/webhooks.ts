import { z } from 'zod';

/**
 * The webhooks process's own facts, one stream per delivery (`delivery:<appId>:<deliveryId>`): a
 * delivery is queued once per (webhook, source event), then each attempt is recorded. A restart
 * rebuilds the pending work from these events, so nothing queued is lost.
 */
export const deliveryQueuedV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  deliveryId: z.string(),
  trigger: z.string(),
  /** The event that caused it, and its stream and version: the order kept per conversation. */
  sourceEventId: z.string(),
  orderKey: z.string(),
  sourceVersion: z.number().int(),
  /** The exact body POSTed (what the signature covers). */
  body: z.string(),
  /** Epoch ms of the source event, so latency is event → delivered. */
  occurredAt: z.number().int(),
  queuedAt: z.number().int(),
});

export const deliveryOutcomes = ['delivered', 'retrying', 'failed', 'gone'] as const;
export const deliveryAttemptedV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  deliveryId: z.string(),
  attempt: z.number().int().min(1),
  outcome: z.enum(deliveryOutcomes),
  /** The receiver's status; absent when no answer came (connection refused, timeout). */
  statusCode: z.number().int().optional(),
  error: z.string().optional(),
  latencyMs: z.number().int(),
  /** At most 256 characters of the receiver's answer. */
  responsePrefix: z.string(),
  /** Epoch ms of the next attempt when the outcome is `retrying`. */
  nextAttemptAt: z.number().int().optional(),
  at: z.number().int(),
});

/** Redelivery asked through the API (our extension): the delivery is attempted again from attempt 1. */
export const deliveryRequeuedV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  deliveryId: z.string(),
  at: z.number().int(),
});

export const deliveryEventTypes = ['DeliveryQueued', 'DeliveryAttempted', 'DeliveryRequeued'] as const;

export const webhookDeliveryEventSchemas = {
  DeliveryQueued: { 1: deliveryQueuedV1 },
  DeliveryAttempted: { 1: deliveryAttemptedV1 },
  DeliveryRequeued: { 1: deliveryRequeuedV1 },
} as const;

export type DeliveryQueued = z.infer<typeof deliveryQueuedV1>;
export type DeliveryAttempted = z.infer<typeof deliveryAttemptedV1>;
export type DeliveryRequeued = z.infer<typeof deliveryRequeuedV1>;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];
