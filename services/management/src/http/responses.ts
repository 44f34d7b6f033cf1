import type { ApiKeyState } from '../domain/apps/appState.js';
import type { ApiKeyDocument } from '../projections/apps/apiKeys.js';
import type { WebhookDocument } from '../projections/webhooks/webhooks.js';

/** Every app here is self-hosted: no trial, no owner account. */
export const SELF_HOSTED_PLAN = 'self-hosted';

const regionNames: Record<string, string> = { us: 'USA', eu: 'Europe', in: 'India' };

type KeyFields = Pick<ApiKeyState, 'keyId' | 'maskedKey' | 'name' | 'scope' | 'createdAt'>;

/** The chat API's key shape. `apiKey` is the full key only in a create response, masked otherwise. */
export function apiKeyBody(key: KeyFields, fullKey?: string) {
  return { apiKey: fullKey ?? key.maskedKey, name: key.name, scope: key.scope, createdAt: key.createdAt, keyId: key.keyId };
}

interface AppFields {
  appId: string;
  name: string;
  region: string;
  createdAt: number;
}

type AppKey = Pick<ApiKeyDocument, 'keyId' | 'maskedKey' | 'name' | 'scope' | 'createdBy'> & { fullKey?: string };

/**
 * CometChat's app shape. `apiKeys` is keyed by the full key on creation (as in CometChat's example)
 * and by key id afterwards, since a masked key is not a safe map key.
 */
export function appBody(app: AppFields, keys: readonly AppKey[]) {
  return {
    id: app.appId,
    name: app.name,
    plan: SELF_HOSTED_PLAN,
    state: 'active',
    region: app.region,
    createdAt: app.createdAt,
    appRegion: { id: app.region, name: regionNames[app.region] ?? app.region },
    apiKeys: Object.fromEntries(
      keys.map((k) => [
        k.fullKey ?? k.keyId,
        { apiKey: k.fullKey ?? k.maskedKey, keyId: k.keyId, name: k.name, scope: k.scope, createdBy: k.createdBy },
      ]),
    ),
  };
}

type WebhookFields = Pick<WebhookDocument, 'webhookId' | 'name' | 'url' | 'enabled' | 'useBasicAuth' | 'username' | 'retryOnFailure' | 'createdAt' | 'updatedAt'>;

/** CometChat's webhook shape; the password and the signing secret are never shown here. */
export function webhookBody(webhook: WebhookFields) {
  return {
    id: webhook.webhookId,
    name: webhook.name,
    webhookURL: webhook.url,
    enabled: webhook.enabled,
    useBasicAuth: webhook.useBasicAuth,
    ...(webhook.username !== undefined ? { username: webhook.username } : {}),
    retryOnFailure: webhook.retryOnFailure,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

/** One `{success, message}` per name, CometChat's shape for bulk answers. */
export function eachSucceeded(names: readonly string[], message: string): Record<string, { success: true; message: string }> {
  return Object.fromEntries(names.map((name) => [name, { success: true as const, message }]));
}
