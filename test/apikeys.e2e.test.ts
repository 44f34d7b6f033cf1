import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, managementHeaders } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
}

describe('/v3/apikeys and management apps through the gateway', () => {
  let app: TestApp;
  let other: TestApp;
  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('keys'), createApp('other keys')]);
  });

  it('creates, lists masked, gets by key or keyId, updates and deletes a key', async () => {
    const created = await app.call('POST', '/v3/apikeys', { body: { name: 'ci', scope: 'authOnly' } });
    expect(created.status).toBe(200);
    const { apiKey, keyId } = created.body.data as { apiKey: string; keyId: string };
    expect(created.body.data).toMatchObject({ name: 'ci', scope: 'authOnly', createdAt: expect.any(Number) });
    expect(apiKey).toMatch(/^[0-9a-f]{40}$/);

    const listed = await app.call('GET', '/v3/apikeys');
    expect(listed.status).toBe(200);
    expect(listed.body.meta.pagination.total).toBe(3);
    const entry = listed.body.data.find((k: { keyId: string }) => k.keyId === keyId);
    expect(entry.apiKey).toBe(`${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`);
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);
    const onlyAuth = await app.call('GET', '/v3/apikeys?scope=authOnly');
    expect(onlyAuth.body.data.every((k: { scope: string }) => k.scope === 'authOnly')).toBe(true);

    expect((await app.call('GET', `/v3/apikeys/${apiKey}`)).body.data.keyId).toBe(keyId);
    expect((await app.call('GET', `/v3/apikeys/${keyId}`)).body.data.name).toBe('ci');

    expectError(await app.call('GET', '/v3/users', { apiKey }), 403, 'AUTH_ERR_NO_ACCESS');
    const renamed = await app.call('PUT', `/v3/apikeys/${keyId}`, { body: { name: 'ci-renamed', scope: 'fullAccess' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'ci-renamed', scope: 'fullAccess' });
    // The new scope applies at the gateway within a second.
    await sleep(1_000);
    expect((await app.call('GET', '/v3/users', { apiKey })).status).toBe(200);

    expect((await app.call('DELETE', `/v3/apikeys/${keyId}`)).body.data.success).toBe(true);
    expectError(await app.call('GET', `/v3/apikeys/${keyId}`), 404, 'ERR_APIKEY_NOT_FOUND');
  });

  it('refuses a key acting on itself, unknown keys, another app’s key, and bad bodies', async () => {
    expectError(await app.call('DELETE', `/v3/apikeys/${app.fullAccessKey}`), 403, 'ERR_APIKEY_NO_SELF_ACTION');
    expectError(await app.call('PUT', `/v3/apikeys/${app.fullAccessKey}`, { body: { name: 'x' } }), 403, 'ERR_APIKEY_NO_SELF_ACTION');
    expectError(await app.call('GET', `/v3/apikeys/${'0'.repeat(40)}`), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await app.call('GET', '/v3/apikeys/not-a-key'), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await app.call('GET', `/v3/apikeys/${other.fullAccessKey}`), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await app.call('DELETE', `/v3/apikeys/${other.authOnlyKey}`), 404, 'ERR_APIKEY_NOT_FOUND');
    expectError(await app.call('POST', '/v3/apikeys', { body: { scope: 'fullAccess' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/apikeys', { body: { name: 'x', scope: 'root' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/apikeys', { body: { name: 'n'.repeat(101), scope: 'authOnly' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/apikeys', { rawBody: '{"name":' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', '/v3/apikeys', { apiKey: app.authOnlyKey }), 403, 'AUTH_ERR_NO_ACCESS');
    // Nothing of that changed the app's keys.
    expect((await app.call('GET', '/v3/apikeys')).body.meta.pagination.total).toBe(2);
  });

  it('gets one app with its keys masked', async () => {
    const got = await call('GET', `/apps/${app.appId}`, { headers: managementHeaders() });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: app.appId, name: 'keys', region: 'us', state: 'active' });
    expect(JSON.stringify(got.body)).not.toContain(app.fullAccessKey);
  });
});
