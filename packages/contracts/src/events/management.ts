import { z } from 'zod';

export const appCreatedV1 = z.object({
  appId: z.string(),
  name: z.string(),
  region: z.string(),
  createdAt: z.number().int(),
});

/**
 * `keyHash` is SHA-256 of a 160-bit random key: useless as a credential, needed by every read model
 * that authenticates. The key itself is never in an event.
 */
export const apiKeyCreatedV1 = z.object({
  keyId: z.string(),
  keyHash: z.string(),
  maskedKey: z.string(),
  name: z.string(),
  scope: z.enum(['fullAccess', 'authOnly']),
  createdBy: z.string(),
  createdAt: z.number().int(),
});

export const apiKeyUpdatedV1 = z.object({
  keyId: z.string(),
  keyHash: z.string(),
  name: z.string(),
  scope: z.enum(['fullAccess', 'authOnly']),
  updatedAt: z.number().int(),
});

export const apiKeyDeletedV1 = z.object({
  keyId: z.string(),
  keyHash: z.string(),
  deletedAt: z.number().int(),
});

/**
 * Deleting an app revokes every key it had (their hashes, so each read model and gateway cache that
 * authenticates can forget them) and stops its webhooks. Its chat data is kept (docs/behaviour/management.md).
 */
export const appDeletedV1 = z.object({
  appId: z.string(),
  keyHashes: z.array(z.string()),
  deletedAt: z.number().int(),
});

/** CometChat's usage request: accepted and recorded; this self-hosted deployment reports nothing by e-mail. */
export const appUsageRequestedV1 = z.object({
  appId: z.string(),
  usePreviousBillingCycle: z.boolean(),
  requestedAt: z.number().int(),
});

/** The app's owner when it was created through `POST /tenants` (the password only as a scrypt hash). */
export const tenantCreatedV1 = z.object({
  appId: z.string(),
  tenantId: z.string(),
  name: z.string(),
  email: z.string(),
  passwordHash: z.string(),
  contactNumber: z.string().optional(),
  role: z.string().optional(),
  industry: z.string().optional(),
  technology: z.string().optional(),
  createdAt: z.number().int(),
});

export const collaboratorRoles = ['admin', 'moderator'] as const;
export const collaboratorsChangedV1 = z.object({
  appId: z.string(),
  added: z.array(z.object({ email: z.string(), role: z.enum(collaboratorRoles) })),
  removed: z.array(z.string()),
  changedAt: z.number().int(),
});

/**
 * Only the settings a command changed, already validated against the catalogue. A list of pairs,
 * not an object: setting keys contain dots, which stored field names must not.
 */
export const appSettingsSetV1 = z.object({
  appId: z.string(),
  settings: z.array(z.object({ key: z.string(), value: z.boolean() })),
  setAt: z.number().int(),
});

export const appSettingsResetV1 = z.object({ appId: z.string(), resetAt: z.number().int() });

/**
 * A webhook's whole configuration after the change. The signing secret and the Basic-Auth password
 * travel sealed (AES-256-GCM, key from configuration), never in clear.
 */
export const webhookConfigV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  name: z.string(),
  url: z.string(),
  useBasicAuth: z.boolean(),
  username: z.string().optional(),
  sealedPassword: z.string().optional(),
  enabled: z.boolean(),
  retryOnFailure: z.boolean(),
  at: z.number().int(),
});
export const webhookCreatedV1 = webhookConfigV1.extend({ sealedSecret: z.string() });
/** `reason`: `api` for a management call, `gone` when the receiver answered 410. */
export const webhookUpdatedV1 = webhookConfigV1.extend({ reason: z.enum(['api', 'gone']) });
export const webhookSecretRotatedV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  sealedSecret: z.string(),
  at: z.number().int(),
});
export const webhookDeletedV1 = z.object({ appId: z.string(), webhookId: z.string(), at: z.number().int() });
/** The webhook's whole trigger list after the change, and what changed. */
export const webhookTriggersChangedV1 = z.object({
  appId: z.string(),
  webhookId: z.string(),
  triggers: z.array(z.string()),
  changed: z.array(z.string()),
  at: z.number().int(),
});

/** An app's creation, deletion and the facts of its owner and usage. */
export const appEventTypes = ['AppCreated', 'AppDeleted'] as const;
/** Settings of an app. */
export const appSettingsEventTypes = ['AppSettingsSet', 'AppSettingsReset'] as const;
/** An app's webhooks: what the webhooks process delivers to, and how. */
export const webhookEventTypes = [
  'WebhookCreated',
  'WebhookUpdated',
  'WebhookSecretRotated',
  'WebhookDeleted',
  'WebhookTriggersAdded',
  'WebhookTriggersRemoved',
] as const;
/** Everything the webhooks process needs to know about the apps it delivers for. */
export const webhookConfigEventTypes = [...webhookEventTypes, ...appSettingsEventTypes, 'AppDeleted'] as const;
/** An app's API keys (hashes only). */
export const apiKeyEventTypes = ['ApiKeyCreated', 'ApiKeyUpdated', 'ApiKeyDeleted'] as const;

export const managementEventSchemas = {
  AppCreated: { 1: appCreatedV1 },
  AppDeleted: { 1: appDeletedV1 },
  AppUsageRequested: { 1: appUsageRequestedV1 },
  TenantCreated: { 1: tenantCreatedV1 },
  CollaboratorsChanged: { 1: collaboratorsChangedV1 },
  AppSettingsSet: { 1: appSettingsSetV1 },
  AppSettingsReset: { 1: appSettingsResetV1 },
  WebhookCreated: { 1: webhookCreatedV1 },
  WebhookUpdated: { 1: webhookUpdatedV1 },
  WebhookSecretRotated: { 1: webhookSecretRotatedV1 },
  WebhookDeleted: { 1: webhookDeletedV1 },
  WebhookTriggersAdded: { 1: webhookTriggersChangedV1 },
  WebhookTriggersRemoved: { 1: webhookTriggersChangedV1 },
  ApiKeyCreated: { 1: apiKeyCreatedV1 },
  ApiKeyUpdated: { 1: apiKeyUpdatedV1 },
  ApiKeyDeleted: { 1: apiKeyDeletedV1 },
} as const;

export type AppCreated = z.infer<typeof appCreatedV1>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedV1>;
export type ApiKeyUpdated = z.infer<typeof apiKeyUpdatedV1>;
export type ApiKeyDeleted = z.infer<typeof apiKeyDeletedV1>;
export type AppDeleted = z.infer<typeof appDeletedV1>;
export type AppUsageRequested = z.infer<typeof appUsageRequestedV1>;
export type TenantCreated = z.infer<typeof tenantCreatedV1>;
export type CollaboratorsChanged = z.infer<typeof collaboratorsChangedV1>;
export type AppSettingsSet = z.infer<typeof appSettingsSetV1>;
export type AppSettingsReset = z.infer<typeof appSettingsResetV1>;
export type WebhookCreated = z.infer<typeof webhookCreatedV1>;
export type WebhookUpdated = z.infer<typeof webhookUpdatedV1>;
export type WebhookSecretRotated = z.infer<typeof webhookSecretRotatedV1>;
export type WebhookDeleted = z.infer<typeof webhookDeletedV1>;
export type WebhookTriggersChanged = z.infer<typeof webhookTriggersChangedV1>;
export type CollaboratorRole = (typeof collaboratorRoles)[number];
