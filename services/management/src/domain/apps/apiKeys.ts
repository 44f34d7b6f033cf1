import { ApiError } from '@chat/contracts';
import type { AppCommand, KeyRef } from './appCommands.js';
import type { ActiveApp, ApiKeyState, AppEvent } from './appState.js';

/** CometChat's documented cap (constraints page): 25 API keys per app. */
export const MAX_API_KEYS_PER_APP = 25;

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

type ApiKeyCommand = Extract<AppCommand, { type: 'CreateApiKey' | 'UpdateApiKey' | 'DeleteApiKey' }>;

/** Keys are minted outside (randomness, hashing); here the cap and who may change which key. */
export function decideApiKey(command: ApiKeyCommand, app: ActiveApp): AppEvent[] {
  switch (command.type) {
    case 'CreateApiKey': {
      if (Object.keys(app.keys).length >= MAX_API_KEYS_PER_APP) {
        throw new ApiError('ERR_APIKEYS_LIMIT_EXCEEDED', `An app can have at most ${MAX_API_KEYS_PER_APP} API keys.`);
      }
      if (Object.hasOwn(app.keys, command.key.keyId)) {
        throw new ApiError('ERR_CONCURRENT_MODIFICATION', 'API key id collision; retry the request.');
      }
      return [{ type: 'ApiKeyCreated', data: { ...command.key, createdAt: command.now } }];
    }
    case 'UpdateApiKey': {
      const key = requireKey(app, command.key);
      refuseSelfAction(key, command.callerKeyId, 'update');
      const name = command.name ?? key.name;
      const scope = command.scope ?? key.scope;
      if (name === key.name && scope === key.scope) return [];
      return [{ type: 'ApiKeyUpdated', data: { keyId: key.keyId, keyHash: key.keyHash, name, scope, updatedAt: command.now } }];
    }
    case 'DeleteApiKey': {
      const key = requireKey(app, command.key);
      refuseSelfAction(key, command.callerKeyId, 'delete');
      return [{ type: 'ApiKeyDeleted', data: { keyId: key.keyId, keyHash: key.keyHash, deletedAt: command.now } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}
