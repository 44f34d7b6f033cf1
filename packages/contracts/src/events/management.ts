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

/** An app's creation. */
export const appEventTypes = ['AppCreated'] as const;
/** An app's API keys (hashes only). */
export const apiKeyEventTypes = ['ApiKeyCreated', 'ApiKeyUpdated', 'ApiKeyDeleted'] as const;

export const managementEventSchemas = {
  AppCreated: { 1: appCreatedV1 },
  ApiKeyCreated: { 1: apiKeyCreatedV1 },
  ApiKeyUpdated: { 1: apiKeyUpdatedV1 },
  ApiKeyDeleted: { 1: apiKeyDeletedV1 },
} as const;

export type AppCreated = z.infer<typeof appCreatedV1>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedV1>;
export type ApiKeyUpdated = z.infer<typeof apiKeyUpdatedV1>;
export type ApiKeyDeleted = z.infer<typeof apiKeyDeletedV1>;
