import { ApiError, isWebhookTrigger, webhookConfigOf } from '@chat/contracts';
import type { WebhookCreated, WebhookState, WebhookUpdated } from '@chat/contracts';

/** Ours: enough for any integration, few enough that one app cannot flood the delivery process. */
export const MAX_WEBHOOKS_PER_APP = 25;

// The state's shape is what management publishes (`@chat/contracts`).
export type { WebhookState };

export type WebhookConfig = Omit<WebhookCreated, 'appId' | 'webhookId' | 'at' | 'sealedSecret'>;
/** What an update may change; `undefined` keeps the current value. */
export type WebhookChanges = Partial<Omit<WebhookConfig, 'username' | 'sealedPassword'>> & {
  username?: string | undefined;
  sealedPassword?: string | undefined;
};

export function requireWebhook(webhooks: Readonly<Record<string, WebhookState>>, webhookId: string): WebhookState {
  const webhook = webhooks[webhookId];
  if (!webhook) throw new ApiError('ERR_WEBHOOK_NOT_FOUND', `The webhook ${webhookId} does not exist.`);
  return webhook;
}

/** Basic Auth needs both halves; a webhook without it keeps none. */
export function checkBasicAuth(config: Pick<WebhookConfig, 'useBasicAuth' | 'username' | 'sealedPassword'>): void {
  if (config.useBasicAuth && (!config.username || !config.sealedPassword)) {
    throw new ApiError('ERR_BAD_REQUEST', 'username: useBasicAuth needs a username and a password.', { field: 'username' });
  }
}

/** Trigger names, each checked: an unknown one is refused, naming it. */
export function validTriggers(names: readonly string[]): string[] {
  for (const name of names) {
    if (!isWebhookTrigger(name)) throw new ApiError('ERR_TRIGGER_NOT_FOUND', `triggerIds: unknown trigger ${name}.`, { field: 'triggerIds' });
  }
  return [...new Set(names)];
}

/** The webhook's configuration after `changes`, as an update event carries it. */
export function updatedConfig(
  appId: string,
  webhook: WebhookState,
  changes: WebhookChanges,
  reason: WebhookUpdated['reason'],
  now: number,
): WebhookUpdated {
  const useBasicAuth = changes.useBasicAuth ?? webhook.useBasicAuth;
  const username = useBasicAuth ? (changes.username ?? webhook.username) : undefined;
  const sealedPassword = useBasicAuth ? (changes.sealedPassword ?? webhook.sealedPassword) : undefined;
  checkBasicAuth({ useBasicAuth, username, sealedPassword });
  return {
    appId,
    webhookId: webhook.webhookId,
    name: changes.name ?? webhook.name,
    url: changes.url ?? webhook.url,
    useBasicAuth,
    ...(username !== undefined ? { username } : {}),
    ...(sealedPassword !== undefined ? { sealedPassword } : {}),
    enabled: changes.enabled ?? webhook.enabled,
    retryOnFailure: changes.retryOnFailure ?? webhook.retryOnFailure,
    reason,
    at: now,
  };
}

export { webhookConfigOf as configOf };
