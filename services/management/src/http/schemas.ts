import { apiKeyScopes, isKnownEventType } from '@chat/contracts';
import { cursorParameter } from '@chat/http';
import { z } from 'zod';

export const regions = ['us', 'eu', 'in'] as const;

/** CometChat: names are up to 100 characters, an emoji counting as two (UTF-16 length). */
const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const scope = z.enum(apiKeyScopes);

const pageQuery = {
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  cursor: cursorParameter,
};

export const createAppBody = z.object({
  name,
  region: z.enum(regions),
  /** Only REST API v3 exists here. */
  version: z.literal('3').optional(),
  /** Accepted for compatibility; this platform never seeds sample data. */
  skipSampleData: z.boolean().optional(),
});

export const listAppsQuery = z.object({ searchKey: z.string().max(100).optional(), ...pageQuery });

export const createApiKeyBody = z.object({ name, scope });

export const updateApiKeyBody = z
  .object({ name: name.optional(), scope: scope.optional() })
  .refine((body) => body.name !== undefined || body.scope !== undefined, {
    message: 'name or scope is required',
    path: ['name'],
  });

export const listApiKeysQuery = z.object({ scope: scope.optional(), searchKey: z.string().max(100).optional(), ...pageQuery });

/** Event types: repeated (`?type=A&type=B`) or comma-separated; each must be one of ours. */
const eventTypes = z
  .union([z.string(), z.array(z.string())])
  .transform((given) => (Array.isArray(given) ? given : [given]).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean))
  .refine((types) => types.length <= 50, 'at most 50 event types')
  .refine((types) => types.every(isKnownEventType), 'not an event type of this platform (see docs/asyncapi.json)');
/** Unix seconds, CometChat's timestamp unit. */
const unixSeconds = z.coerce.number().int().min(0).max(253_402_300_799);

/** Ours: `GET /v3/apikeys/{apiKey}/audit` (docs/behaviour/management.md). */
export const auditQuery = z
  .object({ type: eventTypes.optional(), since: unixSeconds.optional(), until: unixSeconds.optional(), ...pageQuery })
  .refine((q) => q.since === undefined || q.until === undefined || q.since <= q.until, { message: 'must not be before since', path: ['until'] });

export const deleteAppParams = z.object({ appId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'not an app id') });

export const usageBody = z.object({ usePreviousBillingCycle: z.boolean().optional() });

const emails = z.array(z.string().trim().toLowerCase().email('must be e-mail addresses').max(254)).max(100);
export const collaboratorsBody = z
  .object({ admins: emails.optional(), moderators: emails.optional(), collaboratorsToRemove: emails.optional() })
  .refine((b) => b.admins || b.moderators || b.collaboratorsToRemove, {
    message: 'admins, moderators or collaboratorsToRemove is required',
    path: ['admins'],
  });

/** Each key is checked against the catalogue by the domain (validSettings), which names the field. */
export const settingsBody = z.object({ settings: z.record(z.string(), z.unknown()) });

/** CometChat: webhook id and name up to 50 characters. */
const webhookName = z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters');
const webhookURL = z.string().trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters');
const credential = z.string().min(1).max(256);
export const createWebhookBody = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,50}$/, 'must be 1–50 characters of letters, digits, _ and -'),
  name: webhookName,
  webhookURL,
  useBasicAuth: z.boolean().optional(),
  username: credential.optional(),
  password: credential.optional(),
  enabled: z.boolean().optional(),
  retryOnFailure: z.boolean().optional(),
});
export const updateWebhookBody = createWebhookBody
  .omit({ id: true })
  .partial()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'at least one field is required', path: ['name'] });

export const listWebhooksQuery = z.object({ searchKey: z.string().max(100).optional(), ...pageQuery });

export const triggersBody = z.object({ triggerIds: z.array(z.string().max(100)).min(1, 'must name at least one trigger').max(50) });

export const tenantBody = z.object({
  name,
  email: z.string().trim().toLowerCase().email('must be an e-mail address').max(254),
  password: z.string().min(8, 'must be at least 8 characters').max(256),
  contactNumber: z.string().max(50).optional(),
  role: z.string().max(100).optional(),
  appName: name,
  appRegion: z.enum(regions),
  industry: z.string().max(100).optional(),
  technology: z.string().max(100).optional(),
});
