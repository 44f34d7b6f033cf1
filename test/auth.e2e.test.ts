import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, converse, createApp, createUser, managementHeaders } from './support/api.js';
import type { TestApp } from './support/api.js';

const UNPIN = '/v3/users/bob/conversation/pin';

describe('gateway authentication and tenancy', () => {
  let app: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('auth a'), createApp('auth b')]);
    await createUser(app, 'alice');
    await createUser(app, 'bob');
    await converse(app, 'alice', 'bob');
  });

  const expectError = (response: { status: number; body: any }, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(typeof response.body.error.message).toBe('string');
  };

  it('accepts a fullAccess key', async () => {
    expect((await app.call('DELETE', UNPIN, { onBehalfOf: 'alice' })).status).toBe(200);
  });

  it('refuses a request without apikey', async () => {
    expectError(await app.call('DELETE', UNPIN, { apiKey: null, onBehalfOf: 'alice' }), 401, 'AUTH_ERR_EMPTY_APIKEY');
  });

  it('refuses an unknown key', async () => {
    expectError(
      await app.call('DELETE', UNPIN, { apiKey: 'f'.repeat(40), onBehalfOf: 'alice' }),
      401,
      'AUTH_ERR_APIKEY_NOT_FOUND',
    );
  });

  it('refuses an authOnly key where fullAccess is needed, but lets it create users', async () => {
    expectError(await app.call('DELETE', UNPIN, { apiKey: app.authOnlyKey, onBehalfOf: 'alice' }), 403, 'AUTH_ERR_NO_ACCESS');
    const created = await app.call('POST', '/v3/users', { apiKey: app.authOnlyKey, body: { uid: 'by-auth-key', name: 'A' } });
    expect(created.status).toBe(200);
  });

  it("refuses another app's key: a key of app B never reaches app A", async () => {
    expectError(
      await app.call('DELETE', UNPIN, { apiKey: other.fullAccessKey, onBehalfOf: 'alice' }),
      401,
      'AUTH_ERR_APIKEY_NOT_FOUND',
    );
    // And app B's own view has no such users: ids are per tenant.
    expectError(await other.call('DELETE', UNPIN, { onBehalfOf: 'alice' }), 404, 'ERR_UID_NOT_FOUND');
  });

  it('refuses an unknown app and a missing appId', async () => {
    expectError(await app.call('DELETE', UNPIN, { appId: 'nosuchapp0000000', onBehalfOf: 'alice' }), 401, 'AUTH_ERR_INVALID_APPID');
    expectError(await app.call('DELETE', UNPIN, { appId: null, onBehalfOf: 'alice' }), 400, 'AUTH_ERR_EMPTY_APPID');
  });

  it('requires onBehalfOf where the operation does', async () => {
    expectError(await app.call('DELETE', UNPIN), 400, 'ERR_EMPTY_ON_BEHALF_OF');
  });

  it('refuses a revoked key within one second', async () => {
    const created = await app.call('POST', '/v3/apikeys', { body: { name: 'short-lived', scope: 'fullAccess' } });
    expect(created.status).toBe(200);
    const key = created.body.data.apiKey as string;
    expect(key).toMatch(/^[0-9a-f]{40}$/);
    expect((await app.call('DELETE', UNPIN, { apiKey: key, onBehalfOf: 'alice' })).status).toBe(200);

    const deleted = await app.call('DELETE', `/v3/apikeys/${key}`);
    expect(deleted.status).toBe(200);
    await sleep(1_000);
    expectError(await app.call('DELETE', UNPIN, { apiKey: key, onBehalfOf: 'alice' }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
  });

  it('answers unknown operations with ERR_API_NOT_FOUND', async () => {
    expectError(await app.call('GET', '/v3/no-such-thing'), 404, 'ERR_API_NOT_FOUND');
    expectError(await app.call('PATCH', UNPIN, { onBehalfOf: 'alice' }), 404, 'ERR_API_NOT_FOUND');
  });

  it('strips identity headers a client tries to set itself', async () => {
    const spoofed = await app.call('DELETE', UNPIN, {
      apiKey: null,
      onBehalfOf: 'alice',
      headers: { 'x-chat-app-id': app.appId, 'x-chat-key-id': 'x', 'x-chat-scope': 'fullAccess' },
    });
    expectError(spoofed, 401, 'AUTH_ERR_EMPTY_APIKEY');
  });

  it('checks management credentials', async () => {
    expectError(await call('GET', '/apps'), 401, 'AUTH_ERR_EMPTY_AUTH_HEADER');
    expectError(await call('GET', '/apps', { headers: { key: 'wrong', secret: 'wrong' } }), 401, 'AUTH_ERR_INVALID_CREDENTIALS');
    const listed = await call('GET', '/apps', { headers: managementHeaders() });
    expect(listed.status).toBe(200);
    expect(listed.body.data.some((a: { id: string }) => a.id === app.appId)).toBe(true);
  });
});
