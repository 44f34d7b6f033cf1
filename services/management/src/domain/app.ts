import { ApiError } from '@chat/contracts';
import type { ApiKeyCreated, ApiKeyDeleted, ApiKeyScope, ApiKeyUpdated, AppCreated } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

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

/** Plain JSON (no Map) because the state is stored as the commit's snapshot. */
export type AppState =
  | { status: 'absent' }
  | {
      status: 'active';
      appId: string;
      name: string;
      region: string;
      createdAt: number;
      keys: Record<string, ApiKeyState>;
    };

export type AppEvent =
  | DomainEvent<'AppCreated', AppCreated>
  | DomainEvent<'ApiKeyCreated', ApiKeyCreated>
  | DomainEvent<'ApiKeyUpdated', ApiKeyUpdated>
  | DomainEvent<'ApiKeyDeleted', ApiKeyDeleted>;

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
  | { type: 'CreateApp'; appId: string; name: string; region: string; keys: NewApiKey[]; now: number }
  | { type: 'CreateApiKey'; key: NewApiKey; now: number }
  | { type: 'UpdateApiKey'; key: KeyRef; name?: string; scope?: ApiKeyScope; callerKeyId: string; now: number }
  | { type: 'DeleteApiKey'; key: KeyRef; callerKeyId: string; now: number };

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
      if (state.status === 'active') throw new ApiError('ERR_CONCURRENT_MODIFICATION', 'App id collision; retry the request.');
      return [
        {
          type: 'AppCreated',
          data: { appId: command.appId, name: command.name, region: command.region, createdAt: command.now },
        },
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
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
  snapshotVersion: 1,
};
