import { z } from 'zod';

/* The delivery log's resources as routes.ts renders them (`deliveryBody`): the response side of the OpenAPI description. */

/** One delivery: what was sent, how often, and what the receiver last answered. */
export const deliveryResource = z.looseObject({
  id: z.string(),
  trigger: z.string(),
  eventId: z.string(),
  status: z.string(),
  attempts: z.number().int().min(0),
  responseCode: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
  position: z.number(),
  createdAt: z.number().int(),
  lastAttemptAt: z.number().int().nullable(),
  deliveredAt: z.number().int().nullable(),
  nextAttemptAt: z.number().int().nullable(),
});
