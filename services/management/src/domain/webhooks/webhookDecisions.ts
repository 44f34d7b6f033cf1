import { ApiError } from '@chat/contracts';
import type { AppCommand } from '../apps/appCommands.js';
import type { ActiveApp, AppEvent } from '../apps/appState.js';
import { MAX_WEBHOOKS_PER_APP, checkBasicAuth, requireWebhook, updatedConfig, validTriggers } from './webhooks.js';

type WebhookCommand = Extract<
  AppCommand,
  { type: 'CreateWebhook' | 'UpdateWebhook' | 'RotateWebhookSecret' | 'DeleteWebhook' | 'AddWebhookTriggers' | 'RemoveWebhookTriggers' }
>;

export function decideWebhook(command: WebhookCommand, app: ActiveApp): AppEvent[] {
  const appId = app.appId;
  switch (command.type) {
    case 'CreateWebhook': {
      if (Object.hasOwn(app.webhooks, command.webhookId)) {
        throw new ApiError('ERR_WEBHOOK_ALREADY_EXISTS', `A webhook with id ${command.webhookId} already exists.`);
      }
      if (Object.keys(app.webhooks).length >= MAX_WEBHOOKS_PER_APP) {
        throw new ApiError('ERR_WEBHOOKS_LIMIT_EXCEEDED', `An app can have at most ${MAX_WEBHOOKS_PER_APP} webhooks.`);
      }
      checkBasicAuth(command.config);
      return [
        {
          type: 'WebhookCreated',
          data: { ...command.config, appId, webhookId: command.webhookId, sealedSecret: command.sealedSecret, at: command.now },
        },
      ];
    }
    case 'UpdateWebhook': {
      const webhook = requireWebhook(app.webhooks, command.webhookId);
      // A receiver's 410 disables a webhook once; a later one finds it disabled and changes nothing.
      if (command.reason === 'gone' && !webhook.enabled) return [];
      return [{ type: 'WebhookUpdated', data: updatedConfig(appId, webhook, command.changes, command.reason, command.now) }];
    }
    case 'RotateWebhookSecret': {
      requireWebhook(app.webhooks, command.webhookId);
      return [
        { type: 'WebhookSecretRotated', data: { appId, webhookId: command.webhookId, sealedSecret: command.sealedSecret, at: command.now } },
      ];
    }
    case 'DeleteWebhook':
      requireWebhook(app.webhooks, command.webhookId);
      return [{ type: 'WebhookDeleted', data: { appId, webhookId: command.webhookId, at: command.now } }];
    case 'AddWebhookTriggers': {
      const webhook = requireWebhook(app.webhooks, command.webhookId);
      const changed = validTriggers(command.triggers).filter((t) => !webhook.triggers.includes(t));
      if (changed.length === 0) return [];
      const triggers = [...webhook.triggers, ...changed];
      return [{ type: 'WebhookTriggersAdded', data: { appId, webhookId: webhook.webhookId, triggers, changed, at: command.now } }];
    }
    case 'RemoveWebhookTriggers': {
      const webhook = requireWebhook(app.webhooks, command.webhookId);
      const changed = validTriggers(command.triggers).filter((t) => webhook.triggers.includes(t));
      if (changed.length === 0) return [];
      const triggers = webhook.triggers.filter((t) => !changed.includes(t));
      return [{ type: 'WebhookTriggersRemoved', data: { appId, webhookId: webhook.webhookId, triggers, changed, at: command.now } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}
