import { ApiError } from '@chat/contracts';
import type { ErrorCode } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { MAX_API_KEYS_PER_APP } from './apiKeys.js';
import { appDecider } from './app.js';
import type { NewApiKey } from './appCommands.js';
import type { AppEvent } from './appState.js';

const spec = specFor(appDecider);
const refusedWith = (code: ErrorCode) => (error: unknown) => error instanceof ApiError && error.code === code;

const key = (n: number, scope: 'fullAccess' | 'authOnly' = 'fullAccess'): NewApiKey => ({
  keyId: `k${n}`,
  keyHash: `h${n}`,
  maskedKey: `m${n}`,
  name: `key ${n}`,
  scope,
  createdBy: 'app_system',
});

const appCreated: AppEvent = { type: 'AppCreated', data: { appId: 'a1', name: 'Demo', region: 'us', createdAt: 100 } };
const keyCreated = (n: number, scope: 'fullAccess' | 'authOnly' = 'fullAccess'): AppEvent => ({
  type: 'ApiKeyCreated',
  data: { ...key(n, scope), createdAt: 100 },
});
const createdApp: AppEvent[] = [appCreated, keyCreated(1), keyCreated(2, 'authOnly')];

describe('app decider', () => {
  it('creates an app with its initial keys', () => {
    spec
      .given([])
      .when({ type: 'CreateApp', appId: 'a1', name: 'Demo', region: 'us', keys: [key(1), key(2, 'authOnly')], now: 100 })
      .then(createdApp);
  });

  it('refuses to create an app whose id is taken', () => {
    spec
      .given(createdApp)
      .when({ type: 'CreateApp', appId: 'a1', name: 'Other', region: 'us', keys: [], now: 200 })
      .thenThrows(refusedWith('ERR_CONCURRENT_MODIFICATION'));
  });

  it('creates a key', () => {
    spec
      .given(createdApp)
      .when({ type: 'CreateApiKey', key: key(3, 'authOnly'), now: 300 })
      .then([{ type: 'ApiKeyCreated', data: { ...key(3, 'authOnly'), createdAt: 300 } }]);
  });

  it('refuses a key for an app that does not exist', () => {
    spec.given([]).when({ type: 'CreateApiKey', key: key(3), now: 300 }).thenThrows(refusedWith('ERR_APP_NOT_FOUND'));
  });

  it('refuses the 26th key', () => {
    const full = [appCreated, ...Array.from({ length: MAX_API_KEYS_PER_APP }, (_, i) => keyCreated(i + 1))];
    spec.given(full).when({ type: 'CreateApiKey', key: key(99), now: 300 }).thenThrows(refusedWith('ERR_APIKEYS_LIMIT_EXCEEDED'));
  });

  it('counts only live keys towards the limit', () => {
    const full = [appCreated, ...Array.from({ length: MAX_API_KEYS_PER_APP }, (_, i) => keyCreated(i + 1))];
    const oneDeleted: AppEvent = { type: 'ApiKeyDeleted', data: { keyId: 'k5', keyHash: 'h5', deletedAt: 200 } };
    spec
      .given([...full, oneDeleted])
      .when({ type: 'CreateApiKey', key: key(99), now: 300 })
      .then([{ type: 'ApiKeyCreated', data: { ...key(99), createdAt: 300 } }]);
  });

  it('updates name and scope, carrying the resulting values', () => {
    spec
      .given(createdApp)
      .when({ type: 'UpdateApiKey', key: { keyId: 'k2' }, scope: 'fullAccess', callerKeyId: 'k1', now: 400 })
      .then([{ type: 'ApiKeyUpdated', data: { keyId: 'k2', keyHash: 'h2', name: 'key 2', scope: 'fullAccess', updatedAt: 400 } }]);
  });

  it('treats an update that changes nothing as a no-op', () => {
    spec
      .given(createdApp)
      .when({ type: 'UpdateApiKey', key: { keyId: 'k2' }, name: 'key 2', callerKeyId: 'k1', now: 400 })
      .thenNothingHappens();
  });

  it('refuses to update the calling key', () => {
    spec
      .given(createdApp)
      .when({ type: 'UpdateApiKey', key: { keyId: 'k1' }, name: 'mine', callerKeyId: 'k1', now: 400 })
      .thenThrows(refusedWith('ERR_APIKEY_NO_SELF_ACTION'));
  });

  it('refuses to update an unknown key', () => {
    spec
      .given(createdApp)
      .when({ type: 'UpdateApiKey', key: { keyId: 'nope' }, name: 'x', callerKeyId: 'k1', now: 400 })
      .thenThrows(refusedWith('ERR_APIKEY_NOT_FOUND'));
  });

  it('refuses a full key whose hash does not match the key with that id', () => {
    spec
      .given(createdApp)
      .when({ type: 'DeleteApiKey', key: { keyId: 'k2', keyHash: 'other' }, callerKeyId: 'k1', now: 400 })
      .thenThrows(refusedWith('ERR_APIKEY_NOT_FOUND'));
  });

  it('deletes a key', () => {
    spec
      .given(createdApp)
      .when({ type: 'DeleteApiKey', key: { keyId: 'k2', keyHash: 'h2' }, callerKeyId: 'k1', now: 500 })
      .then([{ type: 'ApiKeyDeleted', data: { keyId: 'k2', keyHash: 'h2', deletedAt: 500 } }]);
  });

  it('refuses to delete the calling key', () => {
    spec
      .given(createdApp)
      .when({ type: 'DeleteApiKey', key: { keyId: 'k1' }, callerKeyId: 'k1', now: 500 })
      .thenThrows(refusedWith('ERR_APIKEY_NO_SELF_ACTION'));
  });

  it('refuses to delete a key twice', () => {
    spec
      .given([...createdApp, { type: 'ApiKeyDeleted', data: { keyId: 'k2', keyHash: 'h2', deletedAt: 500 } }])
      .when({ type: 'DeleteApiKey', key: { keyId: 'k2' }, callerKeyId: 'k1', now: 600 })
      .thenThrows(refusedWith('ERR_APIKEY_NOT_FOUND'));
  });
});
