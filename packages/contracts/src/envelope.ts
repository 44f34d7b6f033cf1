import { z } from 'zod';

export const actorSchema = z.object({
  uid: z.string().optional(),
  keyId: z.string(),
  scope: z.string(),
});

/**
 * Envelope of every event on every `chat.*.events` topic (schema version 1 of the envelope itself).
 * `version` is the event's position in its stream; consumers de-duplicate on (streamId, version).
 */
export const eventEnvelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  appId: z.string().min(1),
  streamId: z.string().min(1),
  version: z.number().int().positive(),
  occurredAt: z.string().min(1),
  actor: actorSchema,
  correlationId: z.string().min(1),
  causationId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});

export type EventEnvelope<Type extends string = string, Data = Record<string, unknown>> = Omit<
  z.infer<typeof eventEnvelopeSchema>,
  'type' | 'data'
> & { type: Type; data: Data };

/**
 * Kafka headers every published event carries, so consumers can route without parsing the value;
 * `keyId` is the actor's key id (who acted: the audit trail keeps only API keys' events). A
 * `MessageSent` also carries its message's `category` (the calls service reads only `call`, ADR 0086).
 */
export const eventHeaderNames = { type: 'type', appId: 'appId', schemaVersion: 'schemaVersion', keyId: 'keyId', category: 'category' } as const;
