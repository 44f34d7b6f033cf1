import { mergeSettings } from './settings.js';
import type { ActiveApp, AppEvent, AppState } from './appState.js';
import { configOf } from '../webhooks/webhooks.js';
import type { WebhookState } from '../webhooks/webhooks.js';

export function evolve(state: AppState, event: AppEvent): AppState {
  switch (event.type) {
    case 'AppCreated':
      return {
        status: 'active',
        appId: event.data.appId,
        name: event.data.name,
        region: event.data.region,
        createdAt: event.data.createdAt,
        keys: {},
        settings: [],
        collaborators: {},
        webhooks: {},
      };
    case 'ApiKeyCreated': {
      if (state.status !== 'active') return state;
      const { keyId, keyHash, maskedKey, name, scope, createdBy, createdAt } = event.data;
      return { ...state, keys: { ...state.keys, [keyId]: { keyId, keyHash, maskedKey, name, scope, createdBy, createdAt } } };
    }
    case 'ApiKeyUpdated': {
      if (state.status !== 'active') return state;
      const key = state.keys[event.data.keyId];
      if (!key) return state;
      return { ...state, keys: { ...state.keys, [key.keyId]: { ...key, name: event.data.name, scope: event.data.scope } } };
    }
    case 'ApiKeyDeleted': {
      if (state.status !== 'active') return state;
      const keys = { ...state.keys };
      delete keys[event.data.keyId];
      return { ...state, keys };
    }
    case 'AppDeleted':
      return { status: 'deleted', appId: event.data.appId, deletedAt: event.data.deletedAt };
    case 'AppUsageRequested':
    case 'TenantCreated':
      return state;
    case 'CollaboratorsChanged':
    case 'AppSettingsSet':
    case 'AppSettingsReset':
    case 'WebhookCreated':
    case 'WebhookUpdated':
    case 'WebhookSecretRotated':
    case 'WebhookDeleted':
    case 'WebhookTriggersAdded':
    case 'WebhookTriggersRemoved':
      return state.status === 'active' ? { ...state, ...evolveParts(state, event) } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

type PartEvent = Exclude<
  AppEvent,
  { type: 'AppCreated' | 'ApiKeyCreated' | 'ApiKeyUpdated' | 'ApiKeyDeleted' | 'AppDeleted' | 'AppUsageRequested' | 'TenantCreated' }
>;

/** Settings, collaborators and webhooks: the parts of an active app beside its keys. */
function evolveParts(app: ActiveApp, event: PartEvent): Partial<ActiveApp> {
  switch (event.type) {
    case 'CollaboratorsChanged': {
      const collaborators = { ...app.collaborators };
      for (const email of event.data.removed) delete collaborators[email];
      for (const { email, role } of event.data.added) collaborators[email] = { email, role, addedAt: event.data.changedAt };
      return { collaborators };
    }
    case 'AppSettingsSet':
      return { settings: mergeSettings(app.settings, event.data.settings) };
    case 'AppSettingsReset':
      return { settings: [] };
    case 'WebhookCreated': {
      const { at, sealedSecret } = event.data;
      const webhook: WebhookState = { ...configOf(event.data), sealedSecret, triggers: [], createdAt: at, updatedAt: at };
      return { webhooks: { ...app.webhooks, [webhook.webhookId]: webhook } };
    }
    case 'WebhookUpdated':
      return withWebhook(app, event.data.webhookId, (w) => ({ ...configOf(event.data), sealedSecret: w.sealedSecret, triggers: w.triggers, createdAt: w.createdAt, updatedAt: event.data.at }));
    case 'WebhookSecretRotated':
      return withWebhook(app, event.data.webhookId, (w) => ({ ...w, sealedSecret: event.data.sealedSecret, updatedAt: event.data.at }));
    case 'WebhookTriggersAdded':
    case 'WebhookTriggersRemoved':
      return withWebhook(app, event.data.webhookId, (w) => ({ ...w, triggers: event.data.triggers, updatedAt: event.data.at }));
    case 'WebhookDeleted': {
      const webhooks = { ...app.webhooks };
      delete webhooks[event.data.webhookId];
      return { webhooks };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

function withWebhook(app: ActiveApp, webhookId: string, change: (webhook: WebhookState) => WebhookState): Partial<ActiveApp> {
  const webhook = app.webhooks[webhookId];
  return webhook ? { webhooks: { ...app.webhooks, [webhookId]: change(webhook) } } : {};
}
