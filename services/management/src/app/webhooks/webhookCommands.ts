import { ApiError } from '@chat/contracts';
import type { WebhookUpdated } from '@chat/contracts';
import { newWebhookSecret, urlRefusal } from '@chat/delivery';
import type { PrivateAddressPolicy, SecretBox } from '@chat/delivery';
import type { AppState } from '../../domain/apps/appState.js';
import type { WebhookChanges, WebhookState } from '../../domain/webhooks/webhooks.js';
import { AppStream, managementActor } from '../appStream.js';
import type { AppStreamDeps } from '../appStream.js';

export interface WebhookCommandDeps extends AppStreamDeps {
  secrets: SecretBox;
  /** Which internal addresses webhook URLs may name (`TENANT_URLS_ALLOW_PRIVATE`; none in production). */
  tenantUrls: PrivateAddressPolicy;
}

export interface WebhookInput {
  name: string;
  webhookURL: string;
  useBasicAuth?: boolean | undefined;
  username?: string | undefined;
  password?: string | undefined;
  enabled?: boolean | undefined;
  retryOnFailure?: boolean | undefined;
}

/** Webhooks and their triggers: each change a command on the app's stream. */
export class WebhookCommands {
  private readonly stream: AppStream;
  constructor(private readonly deps: WebhookCommandDeps) {
    this.stream = new AppStream(deps);
  }

  /** The signing secret is returned here and never again (it can only be rotated). */
  async create(appId: string, webhookId: string, input: WebhookInput, requestId: string): Promise<{ webhook: WebhookState; secret: string }> {
    this.checkUrl(input.webhookURL);
    const secret = newWebhookSecret();
    const { date, seconds } = this.stream.now();
    const useBasicAuth = input.useBasicAuth ?? false;
    const state = await this.stream.run(
      appId,
      {
        type: 'CreateWebhook',
        webhookId,
        config: {
          name: input.name,
          url: input.webhookURL,
          useBasicAuth,
          ...(useBasicAuth && input.username !== undefined ? { username: input.username } : {}),
          ...(useBasicAuth && input.password !== undefined ? { sealedPassword: this.deps.secrets.seal(input.password) } : {}),
          enabled: input.enabled ?? true,
          // Ours: retried by default (at least once); false means a single attempt (docs/behaviour/management.md).
          retryOnFailure: input.retryOnFailure ?? true,
        },
        sealedSecret: this.deps.secrets.seal(secret),
        now: seconds,
      },
      managementActor(appId),
      requestId,
      date,
    );
    return { webhook: webhookOf(state, webhookId), secret };
  }

  async update(appId: string, webhookId: string, input: Partial<WebhookInput>, requestId: string): Promise<WebhookState> {
    if (input.webhookURL !== undefined) this.checkUrl(input.webhookURL);
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.webhookURL !== undefined ? { url: input.webhookURL } : {}),
      ...(input.useBasicAuth !== undefined ? { useBasicAuth: input.useBasicAuth } : {}),
      ...(input.username !== undefined ? { username: input.username } : {}),
      ...(input.password !== undefined ? { sealedPassword: this.deps.secrets.seal(input.password) } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.retryOnFailure !== undefined ? { retryOnFailure: input.retryOnFailure } : {}),
    };
    return this.updateWith(appId, webhookId, changes, 'api', requestId);
  }

  /** A receiver answered 410 Gone: the webhook is disabled until someone enables it again. */
  async disableGone(appId: string, webhookId: string, requestId: string): Promise<void> {
    await this.updateWith(appId, webhookId, { enabled: false }, 'gone', requestId);
  }

  async rotateSecret(appId: string, webhookId: string, requestId: string): Promise<string> {
    const secret = newWebhookSecret();
    const { date, seconds } = this.stream.now();
    const sealedSecret = this.deps.secrets.seal(secret);
    await this.stream.run(appId, { type: 'RotateWebhookSecret', webhookId, sealedSecret, now: seconds }, managementActor(appId), requestId, date);
    return secret;
  }

  async delete(appId: string, webhookId: string, requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'DeleteWebhook', webhookId, now: seconds }, managementActor(appId), requestId, date);
  }

  async addTriggers(appId: string, webhookId: string, triggers: string[], requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'AddWebhookTriggers', webhookId, triggers, now: seconds }, managementActor(appId), requestId, date);
  }

  async removeTriggers(appId: string, webhookId: string, triggers: string[], requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'RemoveWebhookTriggers', webhookId, triggers, now: seconds }, managementActor(appId), requestId, date);
  }

  private async updateWith(
    appId: string,
    webhookId: string,
    changes: WebhookChanges,
    reason: WebhookUpdated['reason'],
    requestId: string,
  ): Promise<WebhookState> {
    const { date, seconds } = this.stream.now();
    const state = await this.stream.run(appId, { type: 'UpdateWebhook', webhookId, changes, reason, now: seconds }, managementActor(appId), requestId, date);
    return webhookOf(state, webhookId);
  }

  private checkUrl(url: string): void {
    const refusal = urlRefusal(url, this.deps.tenantUrls);
    if (refusal) throw new ApiError('ERR_WEBHOOK_URL_NOT_ALLOWED', `webhookURL: ${refusal}.`, { field: 'webhookURL' });
  }
}

function webhookOf(state: AppState, webhookId: string): WebhookState {
  const webhook = state.status === 'active' ? state.webhooks[webhookId] : undefined;
  if (!webhook) throw new Error(`webhook ${webhookId} missing from the state its command produced`);
  return webhook;
}
