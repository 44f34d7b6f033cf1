import { effectiveSettings } from '@chat/contracts';
import type { WebhookDocument } from '@chat/contracts';
import type { SecretBox } from '@chat/delivery';
import type { ConfigurationDirectory } from '@chat/runtime';
import type { WebhookReadModels } from '../adapters/readModels.js';

/** A webhook ready to deliver to: its secrets opened once, when its app's entry is loaded. */
export interface Endpoint {
  webhook: WebhookDocument;
  secret: string;
  /** `Authorization` header value when the webhook uses Basic Auth. */
  authorization?: string;
}

export interface AppEntry {
  /** False for a deleted app, or one whose `webhooks.enabled` setting is off. */
  delivering: boolean;
  endpoints: Map<string, Endpoint>;
}

/**
 * The webhooks of each app, as the delivery process needs them: a view over the shared
 * configuration directory (fenced against management's topic, ADR 0035), which keeps them in memory.
 */
export class WebhookDirectory {
  constructor(private readonly apps: ConfigurationDirectory<AppEntry>) {}

  /**
   * Enabled webhooks of the app that listen to the trigger, as configured when the source event
   * occurred (epoch ms) or later; none for a deleted or silenced app.
   */
  async subscribers(appId: string, trigger: string, occurredAt: number): Promise<Endpoint[]> {
    const entry = await this.apps.get(appId, occurredAt);
    if (!entry.delivering) return [];
    return [...entry.endpoints.values()].filter((e) => e.webhook.enabled && e.webhook.triggers.includes(trigger));
  }

  /**
   * The triggers at least one enabled webhook of the app listens to, as configured when an event
   * occurred (epoch ms) or later: empty for an app without any, or deleted or silenced.
   */
  async listenedTriggers(appId: string, occurredAt: number): Promise<ReadonlySet<string>> {
    const entry = await this.apps.get(appId, occurredAt);
    const triggers = new Set<string>();
    if (!entry.delivering) return triggers;
    for (const { webhook } of entry.endpoints.values()) if (webhook.enabled) for (const trigger of webhook.triggers) triggers.add(trigger);
    return triggers;
  }

  /** The webhook if deliveries to it may still go out now (as far as this replica's watch has seen). */
  async deliverable(appId: string, webhookId: string): Promise<Endpoint | null> {
    const entry = await this.apps.get(appId);
    const endpoint = entry.endpoints.get(webhookId);
    return entry.delivering && endpoint?.webhook.enabled ? endpoint : null;
  }

  /** A receiver said 410: nothing more goes to it from this process, before management's event confirms it. */
  async markGone(appId: string, webhookId: string): Promise<void> {
    const endpoint = (await this.apps.get(appId)).endpoints.get(webhookId);
    if (endpoint) endpoint.webhook = { ...endpoint.webhook, enabled: false };
  }
}

/** Loads an app's delivery configuration from the read models, opening each webhook's secrets once. */
export function webhookAppLoader(readModels: WebhookReadModels, secrets: SecretBox): (appId: string) => Promise<AppEntry> {
  return async (appId) => {
    const [app, webhooks] = await Promise.all([readModels.findApp(appId), readModels.liveWebhooks(appId)]);
    const delivering = app !== null && !app.deleted && effectiveSettings(app.settings)['webhooks.enabled'] === true;
    const endpoints = new Map<string, Endpoint>();
    for (const webhook of webhooks) {
      const password = webhook.sealedPassword ? secrets.open(webhook.sealedPassword) : undefined;
      endpoints.set(webhook.webhookId, {
        webhook,
        secret: secrets.open(webhook.sealedSecret),
        ...(webhook.useBasicAuth && webhook.username && password
          ? { authorization: `Basic ${Buffer.from(`${webhook.username}:${password}`).toString('base64')}` }
          : {}),
      });
    }
    return { delivering, endpoints };
  };
}
