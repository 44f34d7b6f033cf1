import { z } from 'zod';

/*
 * The resources this service answers with, as responses.ts and the routes render them: the response
 * side of the OpenAPI description (openapi.ts). Loose objects: the fields a view always writes are
 * required, the rest typed.
 */

const scope = z.enum(['fullAccess', 'authOnly']);

/** `apiKeyBody`: the full key only in a create answer, masked afterwards. */
export const apiKeyResource = z.looseObject({ apiKey: z.string(), name: z.string(), scope, createdAt: z.number().int(), keyId: z.string() });

/** `appBody`: `apiKeys` keyed by the full key on creation, by key id afterwards. */
export const appResource = z.looseObject({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  state: z.string(),
  region: z.string(),
  createdAt: z.number().int(),
  appRegion: z.object({ id: z.string(), name: z.string() }),
  apiKeys: z.record(z.string(), z.looseObject({ apiKey: z.string(), keyId: z.string(), name: z.string(), scope })),
});

/** `webhookBody`: the password and signing secret are never shown (but for the create's `signingSecret`). */
export const webhookResource = z.looseObject({
  id: z.string(),
  name: z.string(),
  webhookURL: z.string(),
  enabled: z.boolean(),
  useBasicAuth: z.boolean(),
  username: z.string().optional(),
  retryOnFailure: z.boolean(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  signingSecret: z.string().optional(),
});

export const triggerResource = z.object({ id: z.string(), description: z.string() });

export const collaboratorResource = z.looseObject({ id: z.string(), name: z.string(), email: z.string(), role: z.string(), createdAt: z.number().int() });

export const collaboratorsAnswer = z.looseObject({
  collaboratorsToRemove: z.array(z.string()),
  admins: z.record(z.string(), z.unknown()),
  developers: z.record(z.string(), z.unknown()),
  moderators: z.record(z.string(), z.unknown()),
});

/** One entry of a key's audit trail (`entryBody`). */
export const auditEntryResource = z.looseObject({
  eventId: z.string(),
  type: z.string(),
  streamId: z.string(),
  version: z.number().int(),
  onBehalfOf: z.string().nullable(),
  scope: z.string().optional(),
  requestId: z.string().optional(),
  imported: z.boolean(),
  occurredAt: z.number().int(),
  occurredAtMs: z.number().int(),
});

/** add-tenant: the owner and the app made for them, with its two keys. */
export const tenantResource = z.looseObject({
  name: z.string(),
  email: z.string(),
  createdAt: z.number().int(),
  app: z.looseObject({ name: z.string(), appId: z.string(), region: z.string(), createdAt: z.number().int() }),
});

/** `GET /ops/lag`: one row per group and partition (packages/kafka `PartitionLag`). */
export const partitionLagResource = z.object({
  groupId: z.string(),
  topic: z.string(),
  partition: z.number().int().min(0),
  end: z.number().int(),
  committed: z.number().int(),
  lag: z.number().int().min(0),
});

/** `GET /ops/events`: an event read off a topic, where it sits in the log. */
export const tailedEventResource = z.object({ partition: z.number().int().min(0), offset: z.string(), event: z.unknown() });

/** `GET /ops/deadletters`: a dead letter, where it came from and a preview of its value. */
export const deadLetterResource = z.looseObject({
  partition: z.number().int().min(0),
  offset: z.string(),
  redriven: z.boolean(),
  from: z.object({ topic: z.string(), partition: z.number().int().min(0), offset: z.string() }),
  reason: z.string(),
  topic: z.string(),
  key: z.string().nullable(),
  value: z.string(),
});
