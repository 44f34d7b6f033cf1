import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createApp, managementHeaders } from './support/api.js';
import type { TestApp } from './support/api.js';
import { readBack } from './support/kafka.js';
import { manage } from './support/webhooks.js';

function expectError(response: { status: number; body: any }, status: number, code: string, field?: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  if (field) expect(response.body.error.message).toContain(field);
}

describe('the management API through the gateway', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('managed');
  });

  it('lists, creates, gets, reports usage of and deletes apps', async () => {
    const created = await manage('POST', '/apps', { name: 'short-lived', region: 'us' });
    expect(created.status).toBe(200);
    const appId = created.body.data.id as string;
    const listed = await call('GET', `/apps?searchKey=short-lived`, { headers: managementHeaders() });
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(appId);

    const usage = await manage('POST', `/apps/${appId}/usage`, { usePreviousBillingCycle: true });
    expect(usage.status).toBe(200);
    expect(usage.body.data.success).toBe(true);
    const usageEvent = await readBack('chat.management.events', (v) => v['type'] === 'AppUsageRequested' && v['appId'] === appId);
    expect(usageEvent.value['data']).toMatchObject({ usePreviousBillingCycle: true });

    const deleted = await manage('DELETE', `/apps/${appId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ success: true, scheduledToDeleteAt: expect.any(Number) });
    expectError(await manage('GET', `/apps/${appId}`), 404, 'ERR_APP_NOT_FOUND');
    expectError(await manage('DELETE', `/apps/${appId}`), 404, 'ERR_APP_NOT_FOUND');
    expectError(await manage('POST', `/apps/${appId}/usage`, {}), 404, 'ERR_APP_NOT_FOUND');
    const relisted = await call('GET', `/apps?searchKey=short-lived`, { headers: managementHeaders() });
    expect(relisted.body.data.map((a: { id: string }) => a.id)).not.toContain(appId);
    const event = await readBack('chat.management.events', (v) => v['type'] === 'AppDeleted' && v['appId'] === appId);
    expect((event.value['data'] as { keyHashes: string[] }).keyHashes).toHaveLength(2);
  });

  it('deleting an app refuses its keys on the gateway within a second, also keys used just before', async () => {
    const doomed = await createApp('revoked with its app');
    expect((await doomed.call('GET', '/v3/users')).status).toBe(200); // cached by the gateway now
    expect((await manage('DELETE', `/apps/${doomed.appId}`)).status).toBe(200);
    await sleep(1_000);
    for (const apiKey of [doomed.fullAccessKey, doomed.authOnlyKey]) {
      expectError(await doomed.call('POST', '/v3/users', { apiKey, body: { uid: 'late', name: 'Late' } }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
    }
  });

  it('creates a tenant with its first app, whose keys work', async () => {
    const created = await manage('POST', '/tenants', {
      name: 'Ada Owner',
      email: 'Ada@Example.com',
      password: 'correct horse battery',
      contactNumber: '1111111111',
      appName: 'Ada app',
      appRegion: 'us',
    });
    expect(created.status).toBe(200);
    const data = created.body.data;
    expect(data).toMatchObject({ name: 'Ada Owner', email: 'ada@example.com', app: { name: 'Ada app', region: 'us' } });
    expect(data.app.apiKey).toMatch(/^[0-9a-f]{40}$/);
    expect(data.app.authKey).toMatch(/^[0-9a-f]{40}$/);
    const users = await call('GET', '/v3/users', { appId: data.app.appId, apiKey: data.app.apiKey });
    expect(users.status).toBe(200);
    const event = await readBack('chat.management.events', (v) => v['type'] === 'TenantCreated' && v['appId'] === data.app.appId);
    expect(JSON.stringify(event.value)).not.toContain('correct horse battery');
    expectError(await manage('POST', '/tenants', { name: 'x', email: 'not-an-email', password: 'long enough', appName: 'a', appRegion: 'us' }), 400, 'ERR_BAD_REQUEST', 'email');
  });

  it('adds, lists and removes collaborators', async () => {
    const added = await manage('POST', `/apps/${app.appId}/collaborators`, {
      admins: ['admin1@example.com'],
      moderators: ['mod1@example.com', 'mod2@example.com'],
    });
    expect(added.status).toBe(200);
    expect(added.body.data.admins).toEqual({ 'admin1@example.com': { success: true, message: expect.any(String) } });
    const removed = await manage('POST', `/apps/${app.appId}/collaborators`, { collaboratorsToRemove: ['mod2@example.com'] });
    expect(removed.body.data.collaboratorsToRemove).toEqual(['mod2@example.com']);
    const listed = await manage('GET', `/apps/${app.appId}/collaborators`);
    expect(listed.body.data.map((c: { email: string; role: string }) => [c.email, c.role]).sort()).toEqual([
      ['admin1@example.com', 'admin'],
      ['mod1@example.com', 'moderator'],
    ]);
    expectError(await manage('POST', `/apps/${app.appId}/collaborators`, { admins: ['nope'] }), 400, 'ERR_BAD_REQUEST', 'admins');
    expectError(await manage('GET', '/apps/nosuchapp/collaborators'), 404, 'ERR_APP_NOT_FOUND');
  });

  it('sets, reads and resets settings, validated key by key', async () => {
    const before = await manage('GET', `/apps/${app.appId}/settings`);
    expect(before.body.data).toMatchObject({ 'core.threads.updateOnMessageActions': false, 'webhooks.enabled': true });
    const set = await manage('POST', `/apps/${app.appId}/settings`, { settings: { 'core.threads.updateOnMessageActions': true } });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ 'core.threads.updateOnMessageActions': { success: true, message: 'Added setting(s) successfully.' } });
    expect((await manage('GET', `/apps/${app.appId}/settings`)).body.data['core.threads.updateOnMessageActions']).toBe(true);

    expectError(await manage('POST', `/apps/${app.appId}/settings`, { settings: { 'core.nonsense': true } }), 400, 'ERR_BAD_REQUEST', 'settings.core.nonsense');
    expectError(
      await manage('POST', `/apps/${app.appId}/settings`, { settings: { 'webhooks.enabled': 'yes' } }),
      400,
      'ERR_BAD_REQUEST',
      'settings.webhooks.enabled',
    );
    expectError(await manage('POST', `/apps/${app.appId}/settings`, { settings: [] }), 400, 'ERR_BAD_REQUEST', 'settings');

    const reset = await manage('DELETE', `/apps/${app.appId}/settings`);
    expect(reset.body.data.success).toBe(true);
    expect((await manage('GET', `/apps/${app.appId}/settings`)).body.data['core.threads.updateOnMessageActions']).toBe(false);
  });

  it('creates, lists, gets, updates and deletes webhooks and their triggers', async () => {
    const base = `/apps/${app.appId}/webhooks`;
    const created = await manage('POST', base, { id: 'crud-hook', name: 'CRUD', webhookURL: 'https://example.com/hook' });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ id: 'crud-hook', name: 'CRUD', webhookURL: 'https://example.com/hook', enabled: true });
    expect(created.body.data.signingSecret).toMatch(/^whsec_/);
    expectError(await manage('POST', base, { id: 'crud-hook', name: 'again', webhookURL: 'https://example.com/x' }), 409, 'ERR_WEBHOOK_ALREADY_EXISTS');

    const listed = await manage('GET', base);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain('crud-hook');
    expect(listed.body.meta.pagination).toMatchObject({ current_page: 1 });
    expect((await manage('GET', `${base}?searchKey=nothing-like-it`)).body.data).toEqual([]);

    const updated = await manage('PUT', `${base}/crud-hook`, { name: 'Renamed', enabled: false });
    expect(updated.body.data).toMatchObject({ name: 'Renamed', enabled: false });
    expect((await manage('GET', `${base}/crud-hook`)).body.data).toMatchObject({ name: 'Renamed', enabled: false });

    const added = await manage('POST', `${base}/crud-hook/triggers`, { triggerIds: ['message_sent', 'message_read_receipt'] });
    expect(added.body.data.message_sent).toMatchObject({ success: true });
    const triggers = await manage('GET', `${base}/crud-hook/triggers`);
    expect(triggers.body.data.map((t: { id: string }) => t.id)).toEqual(['message_sent', 'message_read_receipt']);
    expect(triggers.body.data[0].description).toBeTruthy();
    expectError(await manage('POST', `${base}/crud-hook/triggers`, { triggerIds: ['message_teleported'] }), 400, 'ERR_TRIGGER_NOT_FOUND', 'message_teleported');
    expect((await manage('DELETE', `${base}/crud-hook/triggers`, { triggerIds: ['message_sent'] })).status).toBe(200);
    expect((await manage('GET', `${base}/crud-hook/triggers`)).body.data.map((t: { id: string }) => t.id)).toEqual(['message_read_receipt']);

    const event = await readBack('chat.management.events', (v) => v['type'] === 'WebhookCreated' && v['appId'] === app.appId);
    expect(JSON.stringify(event.value)).not.toContain(created.body.data.signingSecret);

    expect((await manage('DELETE', `${base}/crud-hook`)).body.data).toMatchObject({ success: true });
    expectError(await manage('GET', `${base}/crud-hook`), 404, 'ERR_WEBHOOK_NOT_FOUND');
    expectError(await manage('PUT', `${base}/crud-hook`, { name: 'x' }), 404, 'ERR_WEBHOOK_NOT_FOUND');
    expectError(await manage('GET', `${base}/crud-hook/triggers`), 404, 'ERR_WEBHOOK_NOT_FOUND');
  });

  it('refuses bad webhooks and changes nothing', async () => {
    const base = `/apps/${app.appId}/webhooks`;
    const before = (await manage('GET', base)).body.data.length;
    expectError(await manage('POST', base, { id: 'ftp', name: 'ftp', webhookURL: 'ftp://example.com/x' }), 400, 'ERR_WEBHOOK_URL_NOT_ALLOWED', 'webhookURL');
    expectError(await manage('POST', base, { id: 'bad id!', name: 'x', webhookURL: 'https://example.com' }), 400, 'ERR_BAD_REQUEST', 'id');
    expectError(await manage('POST', base, { name: 'no id', webhookURL: 'https://example.com' }), 400, 'ERR_BAD_REQUEST', 'id');
    expectError(await manage('POST', base, { id: 'x', name: 'x', webhookURL: 'https://example.com', useBasicAuth: true }), 400, 'ERR_BAD_REQUEST', 'username');
    expectError(await call('POST', base, { headers: managementHeaders(), rawBody: '{"id":' }), 400, 'ERR_BAD_REQUEST');
    expectError(await manage('POST', `/apps/nosuchapp/webhooks`, { id: 'x', name: 'x', webhookURL: 'https://example.com' }), 404, 'ERR_APP_NOT_FOUND');
    expectError(await call('GET', base, { headers: { ...managementHeaders(), secret: 'wrong' } }), 401, 'AUTH_ERR_INVALID_CREDENTIALS');
    expect((await manage('GET', base)).body.data.length).toBe(before);
  });
});
