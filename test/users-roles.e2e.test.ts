import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { commitCount } from './support/mongo.js';
import { expectError, expectOk, makeUser, userEvent } from './support/users.js';

describe('roles', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('roles');
  });

  it('has the default role from the start', async () => {
    const listed = expectOk(await app.call('GET', '/v3/roles'));
    expect(listed.data).toEqual([{ role: 'default', name: 'Default', createdAt: expect.any(Number) }]);
    expect(listed.meta.pagination).toEqual({ total: 1, count: 1, per_page: 100, current_page: 1, total_pages: 1 });
    expect(expectOk(await app.call('GET', '/v3/roles/default')).data.role).toBe('default');
  });

  it('creates, gets, updates (with unset) and lists roles', async () => {
    const created = expectOk(
      await app.call('POST', '/v3/roles', {
        body: { role: 'Manager', name: 'Manager', description: 'runs things', metadata: { email: 'm@x.com' }, settings: { listUsers: 'all' } },
      }),
    ).data;
    expect(created).toEqual({
      role: 'manager',
      name: 'Manager',
      description: 'runs things',
      metadata: { email: 'm@x.com' },
      settings: { listUsers: 'all' },
      createdAt: expect.any(Number),
    });
    await userEvent(app.appId, 'RoleCreated', (data) => data.role === 'manager');
    const updated = expectOk(await app.call('PUT', '/v3/roles/manager', { body: { name: 'Boss', unset: ['description', 'settings'] } })).data;
    expect(updated).toMatchObject({ role: 'manager', name: 'Boss', metadata: { email: 'm@x.com' } });
    expect(updated.description).toBeUndefined();
    expect(updated.settings).toBeUndefined();
    await userEvent(app.appId, 'RoleUpdated', (data) => data.role === 'manager');
    expect(expectOk(await app.call('GET', '/v3/roles/MANAGER')).data.name).toBe('Boss');
    const listed = expectOk(await app.call('GET', '/v3/roles?perPage=1&page=2'));
    expect(listed.data.map((r: { role: string }) => r.role)).toEqual(['manager']);
    expect(listed.meta.pagination).toEqual({ total: 2, count: 1, per_page: 1, current_page: 2, total_pages: 2 });
  });

  it.each([
    ['a duplicate', { role: 'manager', name: 'M' }, 409, 'ERR_ROLE_ALREADY_EXISTS'],
    ['the default role', { role: 'default', name: 'D' }, 409, 'ERR_ROLE_ALREADY_EXISTS'],
    ['no name', { role: 'x1' }, 400, 'ERR_BAD_REQUEST'],
    ['a role id with spaces', { role: 'bad role', name: 'B' }, 400, 'ERR_BAD_REQUEST'],
    ['a 256-character description', { role: 'x2', name: 'X', description: 'd'.repeat(256) }, 400, 'ERR_BAD_REQUEST'],
    ['metadata that is not an object', { role: 'x3', name: 'X', metadata: [1] }, 400, 'ERR_BAD_REQUEST'],
  ])('refuses to create %s and changes nothing', async (_label, body, status, code) => {
    const before = await commitCount('users', `roles:${app.appId}`);
    expectError(await app.call('POST', '/v3/roles', { body }), status, code);
    expect(await commitCount('users', `roles:${app.appId}`)).toBe(before);
  });

  it('answers unknown roles with ERR_ROLE_NOT_FOUND', async () => {
    expectError(await app.call('GET', '/v3/roles/ghost'), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/roles/ghost', { body: { name: 'G' } }), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/roles/ghost'), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('GET', '/v3/roles/not%20valid'), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('GET', '/v3/roles/ghost/permissions'), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('GET', '/v3/roles/ghost/restrictedfeatures'), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/roles/manager', { body: { name: 5 } }), 400, 'ERR_BAD_REQUEST', 'name');
  });

  it('refuses to delete the default role and a role in use; deletes it once unused', async () => {
    expectError(await app.call('DELETE', '/v3/roles/default'), 403, 'ERR_ROLE_DELETE_DENIED');
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'temp', name: 'Temp' } }));
    await makeUser(app, 'temp-user', { role: 'temp' });
    expectError(await app.call('DELETE', '/v3/roles/temp'), 409, 'ERR_ROLE_IN_USE', 'temp');
    // A deactivated user still holds the role.
    expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['temp-user'] } }));
    expectError(await app.call('DELETE', '/v3/roles/temp'), 409, 'ERR_ROLE_IN_USE');
    expectOk(await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['temp-user'] } }));
    expectOk(await app.call('PUT', '/v3/users/temp-user', { body: { role: 'default' } }));
    const deleted = expectOk(await app.call('DELETE', '/v3/roles/temp'));
    expect(deleted.data).toEqual({ success: true, message: 'Role temp has been deleted successfully.' });
    expectError(await app.call('GET', '/v3/roles/temp'), 404, 'ERR_ROLE_NOT_FOUND');
    await userEvent(app.appId, 'RoleDeleted', (data) => data.role === 'temp');
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'late', name: 'L', role: 'temp' } }), 404, 'ERR_ROLE_NOT_FOUND');
  });

  it('limits an app to 25 roles', async () => {
    const limited = await createApp('roles limit');
    for (let i = 0; i < 24; i++) expectOk(await limited.call('POST', '/v3/roles', { body: { role: `r${i}`, name: `R${i}` } }));
    expectError(await limited.call('POST', '/v3/roles', { body: { role: 'r24', name: 'R24' } }), 400, 'ERR_ROLES_LIMIT_EXCEEDED');
    expect(expectOk(await limited.call('GET', '/v3/roles')).meta.pagination.total).toBe(25);
  });
});

describe('RBAC role permissions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('rbac');
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'agent', name: 'Agent' } }));
  });

  it('lists every permission with its default value', async () => {
    const listed = expectOk(await app.call('GET', '/v3/roles/agent/permissions'));
    const send = listed.data.find((p: { id: string }) => p.id === 'sendMessage');
    expect(send).toMatchObject({ id: 'sendMessage', type: 'role', dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', value: 'allow' });
    const types = listed.data.find((p: { id: string }) => p.id === 'sendMessage.allowedMessageTypes');
    expect(types).toMatchObject({ dataType: 'stringArray', defaultValue: [] });
    expect(listed.meta.pagination.total).toBe(listed.data.length);
  });

  it('sets permissions with per-id results and the whole map, then unsets one back to its default', async () => {
    const set = expectOk(
      await app.call('PUT', '/v3/roles/agent/permissions', {
        body: { permissions: { sendMessage: 'deny', 'listUsers.mode': 'friends', 'createGroup.allowedGroupTypes': ['public'] } },
      }),
    ).data;
    expect(set.sendMessage).toEqual({ success: true, message: 'Permission with id sendMessage have been mapped successfully to role agent.' });
    expect(set.permissions).toMatchObject({ sendMessage: 'deny', 'listUsers.mode': 'friends', 'createGroup.allowedGroupTypes': ['public'], editMessage: 'allow' });
    const event = await userEvent(app.appId, 'RolePermissionsSet', (data) => data.role === 'agent');
    expect(event.data.permissions).toEqual({ sendMessage: 'deny', 'listUsers.mode': 'friends', 'createGroup.allowedGroupTypes': ['public'] });
    const listed = expectOk(await app.call('GET', '/v3/roles/agent/permissions'));
    expect(listed.data.find((p: { id: string }) => p.id === 'sendMessage').value).toBe('deny');

    const unset = expectOk(await app.call('DELETE', '/v3/roles/agent/permissions/sendMessage')).data;
    expect(unset.permissions.sendMessage).toBe('allow');
    expect(unset.permissions['listUsers.mode']).toBe('friends');
    await userEvent(app.appId, 'RolePermissionsReset', (data) => data.role === 'agent');
    // Ids with a dot go through the gateway's path matching too.
    const dotted = expectOk(await app.call('DELETE', '/v3/roles/agent/permissions/listUsers.mode')).data;
    expect(dotted.permissions['listUsers.mode']).toBe('all');
  });

  it('sets permissions on the default role too', async () => {
    const set = expectOk(await app.call('PUT', '/v3/roles/default/permissions', { body: { permissions: { editMessage: 'deny' } } })).data;
    expect(set.permissions.editMessage).toBe('deny');
  });

  it.each([
    ['an unknown permission', { permissions: { flyToMoon: 'allow' } }, 'flyToMoon'],
    ['a value outside the allowed ones', { permissions: { sendMessage: 'maybe' } }, 'sendMessage'],
    ['a list where text is expected', { permissions: { sendMessage: ['allow'] } }, 'sendMessage'],
    ['unknown items in a list', { permissions: { 'createGroup.allowedGroupTypes': ['secret'] } }, 'createGroup.allowedGroupTypes'],
    ['no permissions', { permissions: {} }, 'permissions'],
    ['no body', undefined, '(body)'],
  ])('refuses %s and changes nothing', async (_label, body, field) => {
    const before = await commitCount('users', `roles:${app.appId}`);
    expectError(await app.call('PUT', '/v3/roles/agent/permissions', body === undefined ? {} : { body }), 400, 'ERR_BAD_REQUEST', field);
    expect(await commitCount('users', `roles:${app.appId}`)).toBe(before);
  });

  it('answers an unknown permission id and an unknown role with 404', async () => {
    expectError(await app.call('DELETE', '/v3/roles/agent/permissions/flyToMoon'), 404, 'ERR_PERMISSION_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/roles/ghost/permissions', { body: { permissions: { sendMessage: 'deny' } } }), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/roles/ghost/permissions/sendMessage'), 404, 'ERR_ROLE_NOT_FOUND');
  });
});

describe('restricted features', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('features');
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'guest', name: 'Guest' } }));
  });

  it('restricts features with per-key results, lists them, and allows them again', async () => {
    const restricted = expectOk(
      await app.call('POST', '/v3/roles/guest/restrictedfeatures', { body: { featuresToRestrict: ['u.listUsers', 'u.deleteGroup'] } }),
    ).data;
    expect(restricted).toEqual({
      'u.listUsers': { success: true, message: 'The feature u.listUsers has been restricted successfully.' },
      'u.deleteGroup': { success: true, message: 'The feature u.deleteGroup has been restricted successfully.' },
    });
    const listed = expectOk(await app.call('GET', '/v3/roles/guest/restrictedfeatures'));
    expect(listed.data).toEqual([
      { title: 'List Users', key: 'u.listUsers', path: '/v3/users', createdAt: expect.any(Number) },
      { title: 'Delete Group', key: 'u.deleteGroup', path: '/v3/groups/{{guid}}', createdAt: expect.any(Number) },
    ]);
    expect(listed.meta.pagination).toMatchObject({ total: 2, count: 2 });
    await userEvent(app.appId, 'RoleFeaturesRestricted', (data) => data.role === 'guest');

    const allowed = expectOk(await app.call('DELETE', '/v3/roles/guest/restrictedfeatures', { body: { featuresToAllow: ['u.listUsers'] } }));
    expect(allowed.data).toEqual({ success: true, message: 'The feature has been allowed successfully.' });
    expect(expectOk(await app.call('GET', '/v3/roles/guest/restrictedfeatures')).data.map((f: { key: string }) => f.key)).toEqual(['u.deleteGroup']);
    expectOk(await app.call('DELETE', '/v3/roles/guest/restrictedfeatures', { body: { allowAll: true } }));
    expect(expectOk(await app.call('GET', '/v3/roles/guest/restrictedfeatures')).data).toEqual([]);
    await userEvent(app.appId, 'RoleFeaturesAllowed', (data) => data.role === 'guest');
  });

  it.each([
    ['POST', 'an unknown feature', { featuresToRestrict: ['u.flyToMoon'] }],
    ['POST', 'no list', {}],
    ['POST', 'a string instead of a list', { featuresToRestrict: 'u.listUsers' }],
    ['DELETE', 'neither a list nor allowAll', {}],
    ['DELETE', 'an unknown feature', { featuresToAllow: ['u.flyToMoon'] }],
  ])('%s refuses %s and changes nothing', async (method, _label, body) => {
    const before = await commitCount('users', `roles:${app.appId}`);
    expectError(await app.call(method, '/v3/roles/guest/restrictedfeatures', { body }), 400, 'ERR_BAD_REQUEST');
    expect(await commitCount('users', `roles:${app.appId}`)).toBe(before);
  });

  it('answers an unknown role with 404', async () => {
    expectError(await app.call('POST', '/v3/roles/ghost/restrictedfeatures', { body: { featuresToRestrict: ['u.listUsers'] } }), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/roles/ghost/restrictedfeatures', { body: { allowAll: true } }), 404, 'ERR_ROLE_NOT_FOUND');
  });
});
