import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, createUsers, expectError } from './support/groups.js';
import { readBack } from './support/kafka.js';
import { commitCount } from './support/mongo.js';

describe('group scope permissions: list, set, unset', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('scope permissions');
    await createUsers(app, 'chief');
    await createGroup(app, { guid: 'guild', name: 'Guild', type: 'public' }, 'chief');
  });

  const path = (scope: string) => `/v3/groups/guild/scopes/${scope}/permissions`;

  it('lists the eleven permissions of a scope with their defaults', async () => {
    const listed = await app.call('GET', path('participant'));
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data).toHaveLength(11);
    expect(listed.body.meta.pagination).toEqual({ total: 11, count: 11, per_page: 100, current_page: 1, total_pages: 1 });
    const send = listed.body.data.find((p: { id: string }) => p.id === 'sendMessage');
    expect(send).toMatchObject({ id: 'sendMessage', type: 'scope', dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', value: 'allow' });
    expect(send.createdAt).toEqual(expect.any(Number));
    const callTypes = listed.body.data.find((p: { id: string }) => p.id === 'initiateCall.allowedType');
    expect(callTypes).toMatchObject({ dataType: 'stringArray', availableValues: ['audio', 'video'], defaultValue: [] });
  });

  it('sets permissions per scope, answers per permission, and publishes the change', async () => {
    const set = await app.call('PUT', path('participant'), {
      body: { permissions: { sendMessage: 'deny', 'initiateCall.allowedType': ['audio'], 'listMembers.allowedScopes': 'admin,moderator' } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.sendMessage).toEqual({ success: true, message: expect.stringContaining('participant') });
    expect(set.body.data.permissions).toMatchObject({ sendMessage: 'deny', 'initiateCall.allowedType': 'audio', 'listMembers.allowedScopes': 'admin,moderator', editMessage: 'allow' });
    expect(Object.keys(set.body.data.permissions)).toHaveLength(11);

    const listed = await app.call('GET', path('participant'));
    expect(listed.body.data.find((p: { id: string }) => p.id === 'sendMessage').value).toBe('deny');
    const admins = await app.call('GET', path('admin'));
    expect(admins.body.data.find((p: { id: string }) => p.id === 'sendMessage').value).toBe('allow');

    const event = await readBack('chat.conversations.events', (v) => v['type'] === 'GroupScopePermissionsChanged' && v['appId'] === app.appId);
    expect(event.value).toMatchObject({
      streamId: `group:${app.appId}:guild`,
      data: { guid: 'guild', scope: 'participant', permissions: { sendMessage: 'deny', 'initiateCall.allowedType': ['audio'] }, removed: [] },
    });

    const commits = await commitCount('conversations', `group:${app.appId}:guild`);
    expect((await app.call('PUT', path('participant'), { body: { permissions: { sendMessage: 'deny' } } })).status).toBe(200);
    expect(await commitCount('conversations', `group:${app.appId}:guild`)).toBe(commits);
  });

  it('unsets a permission back to its default; unsetting again changes nothing', async () => {
    const unset = await app.call('DELETE', `${path('participant')}/sendMessage`);
    expect(unset.status, JSON.stringify(unset.body)).toBe(200);
    expect(unset.body.data.permissions.sendMessage).toBe('allow');
    expect(unset.body.data.permissions['initiateCall.allowedType']).toBe('audio');
    const commits = await commitCount('conversations', `group:${app.appId}:guild`);
    expect((await app.call('DELETE', `${path('participant')}/sendMessage`)).status).toBe(200);
    expect(await commitCount('conversations', `group:${app.appId}:guild`)).toBe(commits);
  });

  it('refuses unknown scopes, permissions, values and groups, and changes nothing', async () => {
    const commits = await commitCount('conversations', `group:${app.appId}:guild`);
    expectError(await app.call('GET', path('owner')), 400, 'ERR_BAD_REQUEST', 'scope');
    expectError(await app.call('PUT', path('owner'), { body: { permissions: { sendMessage: 'deny' } } }), 400, 'ERR_BAD_REQUEST', 'scope');
    expectError(await app.call('PUT', path('admin'), { body: { permissions: { flyToMoon: 'allow' } } }), 400, 'ERR_BAD_REQUEST', 'flyToMoon');
    expectError(await app.call('PUT', path('admin'), { body: { permissions: { sendMessage: 'maybe' } } }), 400, 'ERR_BAD_REQUEST', 'sendMessage');
    expectError(await app.call('PUT', path('admin'), { body: { permissions: { 'initiateCall.allowedType': ['fax'] } } }), 400, 'ERR_BAD_REQUEST', 'initiateCall.allowedType');
    expectError(await app.call('PUT', path('admin'), { body: { permissions: {} } }), 400, 'ERR_BAD_REQUEST', 'permissions');
    expectError(await app.call('PUT', path('admin'), { body: { permissions: 'all' } }), 400, 'ERR_BAD_REQUEST', 'permissions');
    expectError(await app.call('PUT', path('admin'), { rawBody: '{' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('DELETE', `${path('admin')}/flyToMoon`), 400, 'ERR_BAD_REQUEST', 'permission');
    expectError(await app.call('GET', '/v3/groups/nope/scopes/admin/permissions'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/groups/nope/scopes/admin/permissions', { body: { permissions: { sendMessage: 'deny' } } }), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('GET', path('admin'), { apiKey: app.authOnlyKey }), 403, 'AUTH_ERR_NO_ACCESS');
    expect(await commitCount('conversations', `group:${app.appId}:guild`)).toBe(commits);
  });
});
