import { z } from 'zod';
import { apiKeyScopes } from './headers.js';
import { roleAccessSchema } from './roleAccess.js';

/**
 * What the gateway and the management service agree on to authenticate chat calls. Keys are known
 * to both only by `keyHash` = SHA-256 (hex) of the key's UTF-8 bytes; the key itself is never stored.
 */

/** Redis entry where gateways cache a key's identity; management deletes it on every key change. */
export function apiKeyCacheKey(keyHash: string): string {
  return `apikey:${keyHash}`;
}

/** Redis pub/sub channel; each message is a `keyHash` whose cached identity every gateway must drop. */
export const API_KEY_INVALIDATION_CHANNEL = 'apikey-invalidations';

/** `GET /internal/apikeys/:keyHash` on the management service (404 when no live key has that hash). */
export const apiKeyIdentitySchema = z.object({
  appId: z.string().min(1),
  keyId: z.string().min(1),
  scope: z.enum(apiKeyScopes),
});
export type ApiKeyIdentity = z.infer<typeof apiKeyIdentitySchema>;

/** `GET /internal/apps/:appId` on the management service (404 when the app does not exist). */
export const appLocationSchema = z.object({
  appId: z.string().min(1),
  region: z.string().min(1),
});
export type AppLocation = z.infer<typeof appLocationSchema>;

/**
 * `GET` `internalPaths.authTokenByHash` on the users service: whose auth token has this SHA-256 (hex of
 * the token's UTF-8 bytes, which is also its `tokenId`) in this app. 404 when the app has no live token
 * with that hash (unknown, revoked, another app's) or its user is not active.
 */
export const authTokenOwnerSchema = z.object({
  uid: z.string().min(1),
  tokenId: z.string().min(1),
});
export type AuthTokenOwner = z.infer<typeof authTokenOwnerSchema>;

/** `GET` `internalPaths.userExists` on the users service: the user's uid as stored (404 when no such user). */
export const userExistenceSchema = z.object({ uid: z.string().min(1) });
export type UserExistence = z.infer<typeof userExistenceSchema>;

/** How many uids one `internalPaths.roleAccessBatch` request may name. */
export const ROLE_ACCESS_BATCH_MAX = 500;

/**
 * `POST` `internalPaths.roleAccessBatch` on the users service: the gateway's refresh of many acting
 * users' rules in one request (ADR 0104). Uids as the gateway holds them (the service lower-cases them).
 */
export const roleAccessBatchRequestSchema = z.object({
  uids: z
    .array(z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
    .min(1, 'must name at least one uid')
    .max(ROLE_ACCESS_BATCH_MAX, `must name at most ${ROLE_ACCESS_BATCH_MAX} uids`),
});
export type RoleAccessBatchRequest = z.infer<typeof roleAccessBatchRequestSchema>;

/** Its answer: one entry per asked uid, in the asked order; null where no active user has that uid. */
export const roleAccessBatchSchema = z.object({ access: z.array(roleAccessSchema.nullable()) });
export type RoleAccessBatch = z.infer<typeof roleAccessBatchSchema>;

export const internalPaths = {
  apiKeyByHash: (keyHash: string) => `/internal/apikeys/${encodeURIComponent(keyHash)}`,
  app: (appId: string) => `/internal/apps/${encodeURIComponent(appId)}`,
  /** On the users service: the acting user's `RoleAccess` (404 when no active user has that uid). */
  roleAccess: (appId: string, uid: string) => `/internal/apps/${encodeURIComponent(appId)}/users/${encodeURIComponent(uid)}/access`,
  /** On the users service: many users' `RoleAccess` at once (`POST`, `RoleAccessBatchRequest` → `RoleAccessBatch`). */
  roleAccessBatch: (appId: string) => `/internal/apps/${encodeURIComponent(appId)}/access`,
  /**
   * On the users service: whether the app has a user with this uid, deactivated or not (200 `UserExistence`,
   * 404 when none or deleted): realtime's read-through for a typing notice's receiver (ADR 0101).
   */
  userExists: (appId: string, uid: string) => `/internal/apps/${encodeURIComponent(appId)}/users/${encodeURIComponent(uid)}/exists`,
  /** On the users service: the owner of the app's live auth token with this SHA-256 (`AuthTokenOwner`, 404 when none). */
  authTokenByHash: (appId: string, tokenHash: string) => `/internal/apps/${encodeURIComponent(appId)}/authtokens/${encodeURIComponent(tokenHash)}`,
} as const;

/**
 * `GET /internal/apps/:appId/conversations/:conversationId/events?from=&limit=` on the messages service:
 * a page of the conversation's message stream from version `from` (a commit's first version), whole
 * commits of at least `limit` events unless the stream ends; `next` is where the next page starts, null
 * at the end. What the conversations service folds for a time-travel read (ADR 0033).
 */
export function conversationEventsPath(appId: string, conversationId: string, from: number, limit: number): string {
  return `/internal/apps/${encodeURIComponent(appId)}/conversations/${encodeURIComponent(conversationId)}/events?from=${from}&limit=${limit}`;
}

export const conversationEventsPageSchema = z.object({
  events: z.array(z.record(z.string(), z.unknown())),
  next: z.number().int().positive().nullable(),
});
export type ConversationEventsPage = z.infer<typeof conversationEventsPageSchema>;

/**
 * `GET /internal/apps/:appId/call-usage?from=&to=` on the calls service: the call figures of the usage
 * metrics (`GET /stats`, served by the messages service) over a range of epoch seconds, counted from the
 * call records as of the request (ADR 0064).
 */
export function callUsagePath(appId: string, from: number, to: number): string {
  return `/internal/apps/${encodeURIComponent(appId)}/call-usage?from=${from}&to=${to}`;
}

export const callUsageSchema = z.object({
  audio_minutes: z.number().int().min(0),
  video_minutes: z.number().int().min(0),
  recorded_minutes: z.number().int().min(0),
  concurrent_users: z.number().int().min(0),
});
export type CallUsage = z.infer<typeof callUsageSchema>;
