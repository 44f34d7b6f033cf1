import { LoadOnce, WATCHED_EVENT_SETTLE_MS } from '@chat/eventsourcing';
import type { SecretBox } from '@chat/contracts';
import { effectiveSettings } from '@chat/management';
import type { WebhookDocument } from '@chat/management';
import type { WebhookReadModels } from '../adapters/readModels.js';

/** A webhook ready to deliver to: its secrets opened once, when its app's entry is loaded. */
export interface Endpoint {
  webhook: WebhookDocument;
  secret: string;
  /** `Authorization` header value when the webhook uses Basic Auth. */
  authorization?: string;
}

interface AppEntry {
  /** False for a deleted app, or one whose `webhooks.enabled` setting is off. */
  delivering: boolean;
  endpoints: Map<string, Endpoint>;
}

/**
 * The webhooks of each app, read from this process's read models and kept in memory until one of
 * the app's configuration events is applied (the consumer then forgets the app), or another
 * replica's consumer may be applying one (this replica's watch saw it: `forgetWhileApplied`).
 */
export class WebhookDirectory {
  private readonly apps = new LoadOnce<AppEntry>((appId) => this.load(appId));

  constructor(
    private readonly readModels: WebhookReadModels,
    private readonly secrets: SecretBox,
  ) {}

  /** Enabled webhooks of the app that listen to the trigger; none for a deleted or silenced app. */
  async subscribers(appId: string, trigger: string): Promise<Endpoint[]> {
    const entry = await this.entry(appId);
    if (!entry.delivering) return [];
    return [...entry.endpoints.values()].filter((e) => e.webhook.enabled && e.webhook.triggers.includes(trigger));
  }

  /** The webhook if deliveries to it may still go out now. */
  async deliverable(appId: string, webhookId: string): Promise<Endpoint | null> {
    const entry = await this.entry(appId);
    const endpoint = entry.endpoints.get(webhookId);
    return entry.delivering && endpoint?.webhook.enabled ? endpoint : null;
  }

  /** A receiver said 410: nothing more goes to it from this process, before management's event confirms it. */
  async markGone(appId: string, webhookId: string): Promise<void> {
    const endpoint = (await this.entry(appId)).endpoints.get(webhookId);
    if (endpoint) endpoint.webhook = { ...endpoint.webhook, enabled: false };
  }

  forget(appIds: Iterable<string>): void {
    this.apps.forget(appIds);
  }

  /** Seen on the watch, perhaps not yet in the read model: loaded afresh until the projection must have it. */
  forgetWhileApplied(appIds: Iterable<string>): void {
    this.apps.forget(appIds, WATCHED_EVENT_SETTLE_MS);
  }

  private entry(appId: string): Promise<AppEntry> {
    return this.apps.get(appId);
  }

  private async load(appId: string): Promise<AppEntry> {
    const [app, webhooks] = await Promise.all([this.readModels.findApp(appId), this.readModels.liveWebhooks(appId)]);
    const delivering = app !== null && !app.deleted && effectiveSettings(app.settings)['webhooks.enabled'] === true;
    const endpoints = new Map<string, Endpoint>();
    for (const webhook of webhooks) {
      const password = webhook.sealedPassword ? this.secrets.open(webhook.sealedPassword) : undefined;
      endpoints.set(webhook.webhookId, {
        webhook,
        secret: this.secrets.open(webhook.sealedSecret),
        ...(webhook.useBasicAuth && webhook.username && password
          ? { authorization: `Basic ${Buffer.from(`${webhook.username}:${password}`).toString('base64')}` }
          : {}),
      });
    }
    return { delivering, endpoints };
  }
}
