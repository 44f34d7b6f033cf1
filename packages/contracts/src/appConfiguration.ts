import { appEventTypes, appSettingsEventTypes, webhookEventTypes } from './events/management.js';
import type { CollaboratorRole, WebhookCreated, WebhookUpdated } from './events/management.js';
import type { EventOf } from './events/registry.js';

/**
 * What management publishes of an app's configuration, as the documents its readers keep: management's
 * own API and the webhooks process (which projects the same events into its own database). The shapes
 * and folds live here so that neither service imports the other; each wraps a fold in its own
 * projection (`{ name, ...appDocuments }`).
 */

export type SettingValue = boolean;
/** Stored as pairs: setting keys contain dots, which stored field names must not. */
export interface SettingEntry {
  key: string;
  value: SettingValue;
}

/**
 * The settings an app can set (CometChat's `core.*` keys, plus ours), each a boolean with its
 * default. `effective`: whether this platform acts on it (docs/behaviour/management.md); the others
 * are stored and shown so CometChat's dashboards and scripts keep working.
 */
export const settingsCatalogue: Readonly<Record<string, { default: SettingValue; effective: boolean }>> = {
  'core.conversations.updateOnGroupActions': { default: true, effective: false },
  'core.conversations.updateOnReplies': { default: true, effective: false },
  'core.threads.updateOnMessageActions': { default: false, effective: false },
  'core.conversations.updateOnCallActivity': { default: true, effective: false },
  'core.conversations.updateOnMessageActions': { default: true, effective: false },
  'core.conversations.updateOnCustomMessage': { default: true, effective: false },
  'core.notifications.push.enabled': { default: true, effective: false },
  // ours: the app's webhooks deliver only while this is true (the webhooks process reads it)
  'webhooks.enabled': { default: true, effective: true },
};

/** The value of every setting: the app's own over the defaults. */
export function effectiveSettings(own: readonly SettingEntry[]): Record<string, SettingValue> {
  const values = new Map(own.map((entry) => [entry.key, entry.value]));
  return Object.fromEntries(Object.entries(settingsCatalogue).map(([key, spec]) => [key, values.get(key) ?? spec.default]));
}

/** The app's own settings after `changes`, one entry per key. */
export function mergeSettings(own: readonly SettingEntry[], changes: readonly SettingEntry[]): SettingEntry[] {
  const changed = new Set(changes.map((c) => c.key));
  return [...own.filter((entry) => !changed.has(entry.key)), ...changes];
}

export interface AppDocument {
  appId: string;
  name: string;
  region: string;
  createdAt: number;
  /** The app's own settings (defaults are not stored). */
  settings: SettingEntry[];
  collaborators: { email: string; role: CollaboratorRole; addedAt: number }[];
  /** Set when the app was created through `POST /tenants`. */
  owner?: { tenantId: string; name: string; email: string };
  /** Deleted apps stay as tombstones, so a redelivered AppCreated cannot revive one. */
  deleted?: boolean;
  deletedAt?: number;
}

/** A webhook as its app's state keeps it; secrets only sealed. */
export interface WebhookState {
  webhookId: string;
  name: string;
  url: string;
  useBasicAuth: boolean;
  username?: string;
  sealedPassword?: string;
  enabled: boolean;
  retryOnFailure: boolean;
  sealedSecret: string;
  triggers: string[];
  createdAt: number;
  updatedAt: number;
}

/** A webhook as both the management API and the webhooks process read it; secrets only sealed. */
export interface WebhookDocument extends WebhookState {
  appId: string;
  /** A tombstone: the position guard lives in the document. */
  deleted: boolean;
}

/** The config fields of a webhook event, as the state keeps them. */
export function webhookConfigOf(data: WebhookUpdated | WebhookCreated): Omit<WebhookState, 'sealedSecret' | 'triggers' | 'createdAt' | 'updatedAt'> {
  return {
    webhookId: data.webhookId,
    name: data.name,
    url: data.url,
    useBasicAuth: data.useBasicAuth,
    ...(data.username !== undefined ? { username: data.username } : {}),
    ...(data.sealedPassword !== undefined ? { sealedPassword: data.sealedPassword } : {}),
    enabled: data.enabled,
    retryOnFailure: data.retryOnFailure,
  };
}

export function webhookDocumentId(appId: string, webhookId: string): string {
  return `${appId}:${webhookId}`;
}

export const appDocumentEventTypes = [...appEventTypes, ...appSettingsEventTypes, 'CollaboratorsChanged', 'TenantCreated'] as const;
export type AppDocumentEvent = EventOf<(typeof appDocumentEventTypes)[number]>;
export type WebhookDocumentEvent = EventOf<(typeof webhookEventTypes)[number]>;

/**
 * One document per app (`_id` = app id), the fields of `@chat/mongo`'s `Projection` but its name. Keys
 * live in management's own read model and are joined on read.
 */
export const appDocuments = {
  eventTypes: appDocumentEventTypes,
  documentIds: (event: AppDocumentEvent): string[] => [event.data.appId],
  sourceOf: (): string => 'app',
  evolve(document: AppDocument | null, event: AppDocumentEvent): AppDocument | null {
    if (event.type === 'AppCreated') {
      const { appId, name, region, createdAt } = event.data;
      return document ?? { appId, name, region, createdAt, settings: [], collaborators: [] };
    }
    if (!document) return null;
    switch (event.type) {
      case 'AppDeleted':
        return { ...document, deleted: true, deletedAt: event.data.deletedAt };
      case 'TenantCreated':
        return { ...document, owner: { tenantId: event.data.tenantId, name: event.data.name, email: event.data.email } };
      case 'AppSettingsSet':
        return { ...document, settings: mergeSettings(document.settings, event.data.settings) };
      case 'AppSettingsReset':
        return { ...document, settings: [] };
      case 'CollaboratorsChanged': {
        const gone = new Set([...event.data.removed, ...event.data.added.map((a) => a.email)]);
        const kept = document.collaborators.filter((c) => !gone.has(c.email));
        const added = event.data.added.map(({ email, role }) => ({ email, role, addedAt: event.data.changedAt }));
        return { ...document, collaborators: [...kept, ...added] };
      }
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};

/** One document per webhook (`_id` = `<appId>:<webhookId>`), fed by the app's stream; the fields of a `Projection` but its name. */
export const webhookDocuments = {
  eventTypes: webhookEventTypes,
  documentIds: (event: WebhookDocumentEvent): string[] => [webhookDocumentId(event.appId, event.data.webhookId)],
  sourceOf: (): string => 'app',
  evolve(document: WebhookDocument | null, event: WebhookDocumentEvent): WebhookDocument | null {
    const { at } = event.data;
    if (event.type === 'WebhookCreated') {
      return {
        ...webhookConfigOf(event.data),
        appId: event.appId,
        sealedSecret: event.data.sealedSecret,
        triggers: [],
        createdAt: at,
        updatedAt: at,
        deleted: false,
      };
    }
    if (!document || document.deleted) return document;
    switch (event.type) {
      case 'WebhookUpdated': {
        const { sealedSecret, triggers, createdAt, deleted } = document;
        return { ...webhookConfigOf(event.data), appId: event.appId, sealedSecret, triggers, createdAt, deleted, updatedAt: at };
      }
      case 'WebhookSecretRotated':
        return { ...document, sealedSecret: event.data.sealedSecret, updatedAt: at };
      case 'WebhookTriggersAdded':
      case 'WebhookTriggersRemoved':
        return { ...document, triggers: event.data.triggers, updatedAt: at };
      case 'WebhookDeleted':
        return { ...document, deleted: true, enabled: false, updatedAt: at };
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
