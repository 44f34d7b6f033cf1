import { routeCatalog } from '@chat/contracts';
import type { ApiKeyIdentity, RouteSpec } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ManagementCredentials, decideChatAccess, refuseForeignKey, sha256Hex } from './auth.js';

const route = (operationId: string): RouteSpec => {
  const found = routeCatalog.find((r) => r.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
};
const full: ApiKeyIdentity = { appId: 'a1', keyId: 'k1', scope: 'fullAccess' };
const authOnly: ApiKeyIdentity = { appId: 'a1', keyId: 'k2', scope: 'authOnly' };

describe('decideChatAccess', () => {
  it('refuses an unknown key', () => {
    expect(decideChatAccess(route('list-users'), null, 'a1', undefined)).toMatchObject({
      kind: 'refuse',
      refusal: { code: 'AUTH_ERR_APIKEY_NOT_FOUND' },
    });
  });

  it('sends a key of another app to the app-existence check', () => {
    expect(decideChatAccess(route('list-users'), full, 'a2', undefined)).toEqual({ kind: 'foreign-key' });
  });

  it('lets an authOnly key create users and auth tokens only', () => {
    expect(decideChatAccess(route('create-user'), authOnly, 'a1', undefined).kind).toBe('allow');
    expect(decideChatAccess(route('create-authtoken'), authOnly, 'a1', undefined).kind).toBe('allow');
    expect(decideChatAccess(route('list-users'), authOnly, 'a1', undefined)).toMatchObject({
      kind: 'refuse',
      refusal: { code: 'AUTH_ERR_NO_ACCESS' },
    });
    expect(decideChatAccess(route('create-apikey'), authOnly, 'a1', undefined).kind).toBe('refuse');
  });

  it('requires onBehalfOf where the operation needs it', () => {
    expect(decideChatAccess(route('unpin-user-conversation'), full, 'a1', undefined)).toMatchObject({
      kind: 'refuse',
      refusal: { code: 'ERR_EMPTY_ON_BEHALF_OF' },
    });
    expect(decideChatAccess(route('unpin-user-conversation'), full, 'a1', 'superhero1')).toEqual({
      kind: 'allow',
      identity: full,
      onBehalfOf: 'superhero1',
    });
  });

  it('forwards an optional onBehalfOf and drops an ignored one', () => {
    expect(decideChatAccess(route('get-user'), full, 'a1', 'u1')).toMatchObject({ kind: 'allow', onBehalfOf: 'u1' });
    expect(decideChatAccess(route('get-user'), full, 'a1', undefined)).toMatchObject({ kind: 'allow', onBehalfOf: undefined });
    expect(decideChatAccess(route('list-users'), full, 'a1', 'u1')).toMatchObject({ kind: 'allow', onBehalfOf: undefined });
  });

  it('checks scope before onBehalfOf', () => {
    expect(decideChatAccess(route('unpin-user-conversation'), authOnly, 'a1', undefined)).toMatchObject({
      refusal: { code: 'AUTH_ERR_NO_ACCESS' },
    });
  });
});

describe('refuseForeignKey', () => {
  it('says the app id is wrong only when the app does not exist', () => {
    expect(refuseForeignKey(false, 'nope').code).toBe('AUTH_ERR_INVALID_APPID');
    expect(refuseForeignKey(true, 'a2').code).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
  });
});

describe('ManagementCredentials', () => {
  const credentials = new ManagementCredentials('mgmt-key', 'mgmt-secret');

  it('accepts the configured pair', () => {
    expect(credentials.check('mgmt-key', 'mgmt-secret')).toBeNull();
  });

  it('tells a missing header from a wrong one', () => {
    expect(credentials.check(undefined, 'mgmt-secret')?.code).toBe('AUTH_ERR_EMPTY_AUTH_HEADER');
    expect(credentials.check('mgmt-key', '')?.code).toBe('AUTH_ERR_EMPTY_AUTH_HEADER');
    expect(credentials.check('mgmt-key', 'wrong')?.code).toBe('AUTH_ERR_INVALID_CREDENTIALS');
    expect(credentials.check('mgmt-secret', 'mgmt-key')?.code).toBe('AUTH_ERR_INVALID_CREDENTIALS');
    expect(credentials.check('mgmt-key-longer', 'mgmt-secret')?.code).toBe('AUTH_ERR_INVALID_CREDENTIALS');
  });
});

describe('sha256Hex', () => {
  it('matches the management service hashing (SHA-256 hex of UTF-8)', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
