import type { ApiKeyCreated, ApiKeyScope, TenantCreated, WebhookUpdated } from '@chat/contracts';
import type { SettingEntry } from './settings.js';
import type { WebhookChanges, WebhookConfig } from '../webhooks/webhooks.js';

/** The owner an app created through `POST /tenants` records. */
export type NewTenant = Omit<TenantCreated, 'appId' | 'createdAt'>;

/** A key minted outside the domain (randomness and hashing are I/O-side concerns). */
export type NewApiKey = Omit<ApiKeyCreated, 'createdAt'>;

/**
 * How a caller names an existing key: by id, plus the hash when it presented the full key; or by the
 * masked value a list showed (`f191…3fbf`), which must match exactly one key of the app.
 */
export type KeyRef = { keyId: string; keyHash?: string } | { maskedKey: string };

/** `now` is epoch seconds, CometChat's timestamp unit. */
export type AppCommand =
  | { type: 'CreateApp'; appId: string; name: string; region: string; keys: NewApiKey[]; tenant?: NewTenant; now: number }
  | { type: 'CreateApiKey'; key: NewApiKey; now: number }
  | { type: 'UpdateApiKey'; key: KeyRef; name?: string; scope?: ApiKeyScope; callerKeyId: string; now: number }
  | { type: 'DeleteApiKey'; key: KeyRef; callerKeyId: string; now: number }
  | { type: 'DeleteApp'; now: number }
  | { type: 'RequestUsage'; usePreviousBillingCycle: boolean; now: number }
  | { type: 'ChangeCollaborators'; admins: string[]; moderators: string[]; remove: string[]; now: number }
  | { type: 'SetSettings'; settings: SettingEntry[]; now: number }
  | { type: 'ResetSettings'; now: number }
  | { type: 'CreateWebhook'; webhookId: string; config: WebhookConfig; sealedSecret: string; now: number }
  | { type: 'UpdateWebhook'; webhookId: string; changes: WebhookChanges; reason: WebhookUpdated['reason']; now: number }
  | { type: 'RotateWebhookSecret'; webhookId: string; sealedSecret: string; now: number }
  | { type: 'DeleteWebhook'; webhookId: string; now: number }
  | { type: 'AddWebhookTriggers'; webhookId: string; triggers: string[]; now: number }
  | { type: 'RemoveWebhookTriggers'; webhookId: string; triggers: string[]; now: number };
