import { ApiError } from '@chat/contracts';
import type {
  ApiKeyCreated,
  ApiKeyDeleted,
  ApiKeyScope,
  ApiKeyUpdated,
  AppCreated,
  AppDeleted,
  AppSettingsReset,
  AppSettingsSet,
  AppUsageRequested,
  CollaboratorRole,
  CollaboratorsChanged,
  TenantCreated,
  WebhookCreated,
  WebhookDeleted,
  WebhookSecretRotated,
  WebhookTriggersChanged,
  WebhookUpdated,
} from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { mergeSettings } from './settings.js';
import type { SettingEntry } from './settings.js';
import { MAX_WEBHOOKS_PER_APP, checkBasicAuth, configOf, requireWebhook, updatedConfig, validTriggers } from '../webhooks/webhooks.js';
import type { WebhookChanges, WebhookConfig, WebhookState } from '../webhooks/webhooks.js';

/** CometChat's documented cap (constraints page): 25 API keys per app. */
export const MAX_API_KEYS_PER_APP = 25;

/** One aggregate per app: the app and its keys change together, so the key cap is enforced atomically. */
export function appStreamId(appId: string): string {
  return `app:${appId}`;
}

export interface ApiKeyState {
  keyId: string;
  keyHash: string;
  maskedKey: string;
  name: string;
  scope: ApiKeyScope;
  createdBy: string;
  createdAt: number;
}

export interface CollaboratorState {
  email: string;
  role: CollaboratorRole;
  addedAt: number;
}

/** Plain JSON (no Map) because the state is stored as the commit's snapshot. */
export type AppState =
  | { status: 'absent' }
  /** Deleted apps stay deleted: their id is never reused and their keys never come back. */
  | { status: 'deleted'; appId: string; deletedAt: number }
  | {
      status: 'active';
      appId: string;
      name: string;
      region: string;
      createdAt: number;
      keys: Record<string, ApiKeyState>;
      settings: SettingEntry[];
      collaborators: Record<string, CollaboratorState>;
      webhooks: Record<string, WebhookState>;
    };

export type AppEvent =
  | DomainEvent<'AppCreated', AppCreated>
  | DomainEvent<'ApiKeyCreated', ApiKeyCreated>
  | DomainEvent<'ApiKeyUpdated', ApiKeyUpdated>
  | DomainEvent<'ApiKeyDeleted', ApiKeyDeleted>
  | DomainEvent<'AppDeleted', AppDeleted>
  | DomainEvent<'AppUsageRequested', AppUsageRequested>
  | DomainEvent<'TenantCreated', TenantCreated>
  | DomainEvent<'CollaboratorsChanged', CollaboratorsChanged>
  | DomainEvent<'AppSettingsSet', AppSettingsSet>
  | DomainEvent<'AppSettingsReset', AppSettingsReset>
  | DomainEvent<'WebhookCreated', WebhookCreated>
  | DomainEvent<'WebhookUpdated', WebhookUpdated>
  | DomainEvent<'WebhookSecretRotated', WebhookSecretRotated>
  | DomainEvent<'WebhookDeleted', WebhookDeleted>
  | DomainEvent<'WebhookTriggersAdded', WebhookTriggersChanged>
  | DomainEvent<'WebhookTriggersRemoved', WebhookTriggersChanged>;

/** The owner an app created through `POST /tenants` records. */
export type NewTenant = Omit<TenantCreated, 'appId' | 'createdAt'>;

/** A key minted outside the domain (randomness and hashing are I/O-side concerns). */
export type NewApiKey = Omit<ApiKeyCreated, 'createdAt'>;

/**
 * How a caller names an existing key: by id, plus the hash when it presented the full key; or by the
 * masked value a list showed (`f191…3fbf`), which must match exactly one key of the app.
 */
export type KeyRef = { keyId: string; keyHash?: string } | { maskedKey: string };

/** The key a reference names, if it names exactly one; pure, shared by decisions and queries. */
export function keyNamedBy<K extends { keyId: string; keyHash: string; maskedKey: string }>(keys: readonly K[], ref: KeyRef): K | undefined {
  if ('maskedKey' in ref) {
    const matching = keys.filter((key) => key.maskedKey === ref.maskedKey);
    return matching.length === 1 ? matching[0] : undefined;
  }
  const key = keys.find((candidate) => candidate.keyId === ref.keyId);
  // A full key whose hash merely shares the 64-bit id prefix is still not that key.
  return key && (ref.keyHash === undefined || ref.keyHash === key.keyHash) ? key : undefined;
}

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

type ActiveApp = Extract<AppState, { status: 'active' }>;

function requireApp(state: AppState): ActiveApp {
  if (state.status !== 'active') throw new ApiError('ERR_APP_NOT_FOUND', 'The app does not exist.');
  return state;
}

function requireKey(app: ActiveApp, ref: KeyRef): ApiKeyState {
  const key = keyNamedBy(Object.values(app.keys), ref);
  if (!key) throw new ApiError('ERR_APIKEY_NOT_FOUND', 'The API key does not exist in this app.');
  return key;
}

/**
 * The caller's own key cannot be changed by itself. Because every key route needs fullAccess, this
 * also keeps at least one fullAccess key alive in every app.
 */
function refuseSelfAction(key: ApiKeyState, callerKeyId: string, action: string): void {
  if (key.keyId === callerKeyId) {
    throw new ApiError('ERR_APIKEY_NO_SELF_ACTION', `An API key cannot ${action} itself; use another fullAccess key.`);
  }
}

function decide(command: AppCommand, state: AppState): AppEvent[] {
  switch (command.type) {
    case 'CreateApp': {
      // Ids are 64 random bits; a clash is a retryable accident, not a client mistake.
      if (state.status !== 'absent') throw new ApiError('ERR_CONCURRENT_MODIFICATION', 'App id collision; retry the request.');
      return [
        {
          type: 'AppCreated',
          data: { appId: command.appId, name: command.name, region: command.region, createdAt: command.now },
        },
        ...(command.tenant
          ? [{ type: 'TenantCreated', data: { ...command.tenant, appId: command.appId, createdAt: command.now } } satisfies AppEvent]
          : []),
        ...command.keys.map((key): AppEvent => ({ type: 'ApiKeyCreated', data: { ...key, createdAt: command.now } })),
      ];
    }
    case 'CreateApiKey': {
      const app = requireApp(state);
      if (Object.keys(app.keys).length >= MAX_API_KEYS_PER_APP) {
        throw new ApiError('ERR_APIKEYS_LIMIT_EXCEEDED', `An app can have at most ${MAX_API_KEYS_PER_APP} API keys.`);
      }
      if (Object.hasOwn(app.keys, command.key.keyId)) {
        throw new ApiError('ERR_CONCURRENT_MODIFICATION', 'API key id collision; retry the request.');
      }
      return [{ type: 'ApiKeyCreated', data: { ...command.key, createdAt: command.now } }];
    }
    case 'UpdateApiKey': {
      const key = requireKey(requireApp(state), command.key);
      refuseSelfAction(key, command.callerKeyId, 'update');
      const name = command.name ?? key.name;
      const scope = command.scope ?? key.scope;
      if (name === key.name && scope === key.scope) return [];
      return [{ type: 'ApiKeyUpdated', data: { keyId: key.keyId, keyHash: key.keyHash, name, scope, updatedAt: command.now } }];
    }
    case 'DeleteApiKey': {
      const key = requireKey(requireApp(state), command.key);
      refuseSelfAction(key, command.callerKeyId, 'delete');
      return [{ type: 'ApiKeyDeleted', data: { keyId: key.keyId, keyHash: key.keyHash, deletedAt: command.now } }];
    }
    case 'DeleteApp': {
      const app = requireApp(state);
      const keyHashes = Object.values(app.keys).map((key) => key.keyHash);
      return [{ type: 'AppDeleted', data: { appId: app.appId, keyHashes, deletedAt: command.now } }];
    }
    case 'RequestUsage': {
      const app = requireApp(state);
      return [
        {
          type: 'AppUsageRequested',
          data: { appId: app.appId, usePreviousBillingCycle: command.usePreviousBillingCycle, requestedAt: command.now },
        },
      ];
    }
    case 'ChangeCollaborators':
      return decideCollaborators(requireApp(state), command);
    case 'SetSettings': {
      const app = requireApp(state);
      const changed = command.settings.filter(({ key, value }) => app.settings.find((own) => own.key === key)?.value !== value);
      if (changed.length === 0) return [];
      return [{ type: 'AppSettingsSet', data: { appId: app.appId, settings: changed, setAt: command.now } }];
    }
    case 'ResetSettings': {
      const app = requireApp(state);
      if (app.settings.length === 0) return [];
      return [{ type: 'AppSettingsReset', data: { appId: app.appId, resetAt: command.now } }];
    }
    case 'CreateWebhook':
    case 'UpdateWebhook':
    case 'RotateWebhookSecret':
    case 'DeleteWebhook':
    case 'AddWebhookTriggers':
    case 'RemoveWebhookTriggers':
      return decideWebhook(command, requireApp(state));
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

type CollaboratorCommand = Extract<AppCommand, { type: 'ChangeCollaborators' }>;

/** Adding someone already there with the same role, or removing someone absent, changes nothing. */
function decideCollaborators(app: ActiveApp, command: CollaboratorCommand): AppEvent[] {
  const wanted = new Map<string, CollaboratorRole>();
  for (const email of command.moderators) wanted.set(email, 'moderator');
  // Named as both: the stronger role wins.
  for (const email of command.admins) wanted.set(email, 'admin');
  const added = [...wanted].filter(([email, role]) => app.collaborators[email]?.role !== role).map(([email, role]) => ({ email, role }));
  const removed = [...new Set(command.remove)].filter((email) => !wanted.has(email) && Object.hasOwn(app.collaborators, email));
  if (added.length === 0 && removed.length === 0) return [];
  return [{ type: 'CollaboratorsChanged', data: { appId: app.appId, added, removed, changedAt: command.now } }];
}

type WebhookCommand = Extract<
  AppCommand,
  { type: 'CreateWebhook' | 'UpdateWebhook' | 'RotateWebhookSecret' | 'DeleteWebhook' | 'AddWebhookTriggers' | 'RemoveWebhookTriggers' }
>;

function decideWebhook(command: WebhookCommand, app: ActiveApp): AppEvent[] {
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

function evolve(state: AppState, event: AppEvent): AppState {
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

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
  // 2: deleted apps, settings, collaborators and webhooks joined the state.
  snapshotVersion: 2,
};
