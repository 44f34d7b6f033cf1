import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { commitCount } from './support/mongo.js';
import { expectError, expectOk, makeUser, uidsOf, userEvent } from './support/users.js';

describe('users: create, get, update', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('users crud');
  });

  it('creates a user with every CometChat field and shows it back', async () => {
    const data = await makeUser(app, 'Full-User', {
      name: 'Full User',
      avatar: 'https://example.com/a.png',
      link: 'https://example.com/u',
      statusMessage: 'busy',
      metadata: { '@private': { email: 'f@example.com' }, 'a.b': [[1]] },
      tags: ['vip', 'beta'],
      withAuthToken: true,
    });
    expect(data).toMatchObject({
      uid: 'full-user',
      name: 'Full User',
      avatar: 'https://example.com/a.png',
      link: 'https://example.com/u',
      statusMessage: 'busy',
      status: 'offline',
      role: 'default',
      tags: ['vip', 'beta'],
      metadata: { '@private': { email: 'f@example.com' }, 'a.b': [[1]] },
    });
    expect(Number.isInteger(data.createdAt)).toBe(true);
    expect(data.authToken).toMatch(/^full-user_\d+[0-9a-f]{40}$/);
    const got = expectOk(await app.call('GET', '/v3/users/FULL-USER')).data;
    expect(got).toMatchObject({ uid: 'full-user', name: 'Full User', metadata: data.metadata, tags: ['vip', 'beta'] });
    expect(got.authToken).toBeUndefined();
  });

  it('shows @private metadata to the app and the user, hides it from other users (onBehalfOf)', async () => {
    await makeUser(app, 'viewer');
    const asOther = expectOk(await app.call('GET', '/v3/users/full-user', { onBehalfOf: 'viewer' })).data;
    expect(asOther.metadata).toEqual({ 'a.b': [[1]] });
    const asSelf = expectOk(await app.call('GET', '/v3/users/full-user', { onBehalfOf: 'full-user' })).data;
    expect(asSelf.metadata['@private']).toEqual({ email: 'f@example.com' });
    expectError(await app.call('GET', '/v3/users/full-user', { onBehalfOf: 'ghost' }), 404, 'ERR_UID_NOT_FOUND');
  });

  it('updates fields, removes them with unset, and publishes UserUpdated', async () => {
    await makeUser(app, 'upd', { avatar: 'https://example.com/1.png', link: 'https://example.com/l', metadata: { k: 1 }, tags: ['t'] });
    const updated = expectOk(
      await app.call('PUT', '/v3/users/upd', { body: { name: 'Renamed', statusMessage: 'hi', unset: ['avatar', 'metadata'] } }),
    ).data;
    expect(updated).toMatchObject({ uid: 'upd', name: 'Renamed', statusMessage: 'hi', link: 'https://example.com/l', tags: ['t'] });
    expect(updated.avatar).toBeUndefined();
    expect(updated.metadata).toBeUndefined();
    expect(updated.updatedAt).toBeGreaterThanOrEqual(updated.createdAt);
    const event = await userEvent(app.appId, 'UserUpdated', (data) => data.uid === 'upd');
    expect(event.data).toMatchObject({ uid: 'upd', changes: { name: 'Renamed', statusMessage: 'hi' }, removed: ['avatar', 'metadata'] });
    // A no-op update answers the user and writes nothing.
    const before = await commitCount('users', `user:${app.appId}:upd`);
    expectOk(await app.call('PUT', '/v3/users/upd', { body: {} }));
    expect(await commitCount('users', `user:${app.appId}:upd`)).toBe(before);
  });

  it.each([
    ['an unknown user', '/v3/users/ghost', { name: 'x' }, 404, 'ERR_UID_NOT_FOUND'],
    ['a name of the wrong type', '/v3/users/upd', { name: 7 }, 400, 'ERR_BAD_REQUEST'],
    ['an empty name', '/v3/users/upd', { name: '  ' }, 400, 'ERR_BAD_REQUEST'],
    ['a link that is not a URL', '/v3/users/upd', { link: 'ftp://x' }, 400, 'ERR_BAD_REQUEST'],
    ['a 3001-character avatar', '/v3/users/upd', { avatar: `https://e.com/${'a'.repeat(2990)}` }, 400, 'ERR_BAD_REQUEST'],
    ['26 tags', '/v3/users/upd', { tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }, 400, 'ERR_BAD_REQUEST'],
    ['metadata over 5 KB', '/v3/users/upd', { metadata: { x: 'y'.repeat(5200) } }, 400, 'ERR_BAD_REQUEST'],
    ['unsetting an unknown field', '/v3/users/upd', { unset: ['name'] }, 400, 'ERR_BAD_REQUEST'],
    ['setting and unsetting a field', '/v3/users/upd', { avatar: 'https://e.com/a', unset: ['avatar'] }, 400, 'ERR_BAD_REQUEST'],
    ['an unknown role', '/v3/users/upd', { role: 'no-such-role' }, 404, 'ERR_ROLE_NOT_FOUND'],
  ])('refuses an update with %s and changes nothing', async (_label, path, body, status, code) => {
    const before = await commitCount('users', `user:${app.appId}:upd`);
    expectError(await app.call('PUT', path, { body }), status, code);
    expect(await commitCount('users', `user:${app.appId}:upd`)).toBe(before);
  });

  it('refuses a create with an unknown role, and with a uid over 100 characters', async () => {
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'r1', name: 'R', role: 'ghost-role' } }), 404, 'ERR_ROLE_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'x'.repeat(101), name: 'R' } }), 400, 'ERR_BAD_REQUEST', 'uid');
    expectError(await app.call('GET', '/v3/users/r1'), 404, 'ERR_UID_NOT_FOUND');
  });

  it('never creates a second user for one uid, also in a race of ten', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => app.call('POST', '/v3/users', { body: { uid: 'Race-Twin', name: `T${i}` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) expectError(loser, 409, 'ERR_UID_ALREADY_EXISTS');
    expect(await commitCount('users', `user:${app.appId}:race-twin`)).toBe(1);
    const winner = results.find((r) => r.status === 200)?.body.data.name;
    expect(expectOk(await app.call('GET', '/v3/users/race-twin')).data.name).toBe(winner);
  });
});

describe('users: list filters and paging', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('users list');
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'admin', name: 'Admin' } }));
    expectOk(await app.call('POST', '/v3/roles', { body: { role: 'mod', name: 'Mod' } }));
    await makeUser(app, 'u-carol', { name: 'Carol Smith', role: 'admin', tags: ['red'] });
    await makeUser(app, 'u-alice', { name: 'alice Jones', tags: ['red', 'blue'] });
    await makeUser(app, 'u-bob', { name: 'Bob Smith', role: 'mod', tags: ['blue'] });
    await makeUser(app, 'u-dave', { name: 'Dave' });
    expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['u-dave'] } }));
  });

  it('lists active users in creation order with CometChat pagination, without tags unless asked', async () => {
    const listed = expectOk(await app.call('GET', '/v3/users'));
    expect(listed.data.map((u: { uid: string }) => u.uid)).toEqual(['u-carol', 'u-alice', 'u-bob']);
    expect(listed.meta.pagination).toEqual({ total: 3, count: 3, per_page: 100, current_page: 1, total_pages: 1 });
    expect(listed.data[0].tags).toBeUndefined();
    const withTags = expectOk(await app.call('GET', '/v3/users?withTags=true'));
    expect(withTags.data[0].tags).toEqual(['red']);
    const page2 = expectOk(await app.call('GET', '/v3/users?perPage=2&page=2'));
    expect(page2.data.map((u: { uid: string }) => u.uid)).toEqual(['u-bob']);
    expect(page2.meta.pagination).toEqual({ total: 3, count: 1, per_page: 2, current_page: 2, total_pages: 2 });
  });

  it.each([
    ['searchKey in name and uid', '?searchKey=smith', ['u-carol', 'u-bob']],
    ['searchKey only in uid', '?searchKey=smith&searchIn=uid', []],
    ['searchKey case-insensitively in name', '?searchKey=ALICE&searchIn=name', ['u-alice']],
    ['searchKey in uid', '?searchKey=u-b&searchIn=uid', ['u-bob']],
    ['a role', '?role=admin', ['u-carol']],
    ['several roles', '?roles=admin,mod', ['u-carol', 'u-bob']],
    ['repeated roles', '?roles[]=default&roles[]=mod', ['u-alice', 'u-bob']],
    ['tags (any of)', '?tags=red', ['u-carol', 'u-alice']],
    ['tags as a list', '?tags=blue,red', ['u-carol', 'u-alice', 'u-bob']],
    ['status offline', '?status=offline', ['u-carol', 'u-alice', 'u-bob']],
    ['status available (no presence: nobody)', '?status=available', []],
    ['only deactivated users', '?onlyDeactivated=true', ['u-dave']],
    ['deactivated users too', '?withDeactivated=true', ['u-carol', 'u-alice', 'u-bob', 'u-dave']],
    ['count accepted', '?count=true&perPage=1', ['u-carol']],
  ])('filters by %s', async (_label, query, expected) => {
    const listed = await app.call('GET', `/v3/users${query}`);
    expect(uidsOf(listed)).toEqual(expected);
    expect(listed.body.meta.pagination.count).toBe(expected.length);
  });

  it('keeps the default listing in step with deactivation, reactivation and deletion', async () => {
    await makeUser(app, 'u-eve');
    await makeUser(app, 'u-fay');
    expect(uidsOf(await app.call('GET', '/v3/users?perPage=2&page=2'))).toEqual(['u-bob', 'u-eve']);
    expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['u-alice'] } }));
    expect(uidsOf(await app.call('GET', '/v3/users?perPage=2&page=2'))).toEqual(['u-eve', 'u-fay']);
    expectOk(await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['u-alice'] } }));
    expectOk(await app.call('DELETE', '/v3/users/u-eve'));
    const listed = expectOk(await app.call('GET', '/v3/users'));
    expect(listed.data.map((u: { uid: string }) => u.uid)).toEqual(['u-carol', 'u-alice', 'u-bob', 'u-fay']);
    expect(listed.meta.pagination.total).toBe(4);
    expectOk(await app.call('DELETE', '/v3/users/u-fay', { body: { permanent: true } }));
    expect(uidsOf(await app.call('GET', '/v3/users'))).toEqual(['u-carol', 'u-alice', 'u-bob']);
    expectOk(await app.call('PUT', '/v3/users/u-bob', { body: { name: 'Robert', unset: ['tags'] } }));
    const renamed = expectOk(await app.call('GET', '/v3/users?withTags=true')).data[2];
    expect(renamed).toMatchObject({ uid: 'u-bob', name: 'Robert', tags: [] });
  });

  it.each([
    ['perPage over 1000', '?perPage=1001', 'perPage'],
    ['a page of 0', '?page=0', 'page'],
    ['an unknown status', '?status=busy', 'status'],
    ['a non-boolean flag', '?withTags=yes', 'withTags'],
    ['an unknown searchIn', '?searchIn=email', 'searchIn'],
  ])('refuses %s', async (_label, query, field) => {
    expectError(await app.call('GET', `/v3/users${query}`), 400, 'ERR_BAD_REQUEST', field);
  });
});

describe('users: deactivate, reactivate, delete', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('users lifecycle');
    for (const uid of ['d1', 'd2', 'd3', 'gone-soft', 'gone-hard']) await makeUser(app, uid);
  });

  it('deactivates in bulk with per-uid results; a deactivated user is not found and its tokens stop', async () => {
    const token = expectOk(await app.call('POST', '/v3/users/d1/auth_tokens', { body: {} })).data.authToken;
    const result = expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['d1', 'D2', 'ghost'] } }));
    expect(result.data).toEqual({ deactivatedUids: ['d1', 'd2'] });
    expectError(await app.call('GET', '/v3/users/d1'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/users/d1', { body: { name: 'x' } }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('GET', `/v3/users/d1/auth_tokens/${token}`), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/d1/auth_tokens', { body: {} }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'd1', name: 'again' } }), 409, 'ERR_UID_ALREADY_EXISTS');
    const event = await userEvent(app.appId, 'UserDeactivated', (data) => data.uid === 'd1');
    expect(Number.isInteger(event.data.deactivatedAt)).toBe(true);
    // Deactivating again is idempotent: the uid is still reported, nothing is written.
    const before = await commitCount('users', `user:${app.appId}:d1`);
    expect(expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['d1'] } })).data.deactivatedUids).toEqual(['d1']);
    expect(await commitCount('users', `user:${app.appId}:d1`)).toBe(before);
  });

  it('reactivates in bulk; the user is back with its profile', async () => {
    const result = expectOk(await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['d1', 'd3', 'ghost'] } }));
    expect(result.data).toEqual({ nonDeactivatedUids: ['d1', 'd3'] });
    expect(expectOk(await app.call('GET', '/v3/users/d1')).data.uid).toBe('d1');
    await userEvent(app.appId, 'UserReactivated', (data) => data.uid === 'd1');
  });

  it.each([
    ['no list', {}],
    ['an empty list', { uidsToDeactivate: [] }],
    ['a list of numbers', { uidsToDeactivate: [1, 2] }],
    ['101 uids', { uidsToDeactivate: Array.from({ length: 101 }, (_, i) => `u${i}`) }],
  ])('refuses a bulk deactivation with %s', async (_label, body) => {
    expectError(await app.call('DELETE', '/v3/users', { body }), 400, 'ERR_BAD_REQUEST');
  });

  it('soft-deletes: the user is gone, the uid stays taken, and UserDeleted says permanent false', async () => {
    const deleted = expectOk(await app.call('DELETE', '/v3/users/gone-soft'));
    expect(deleted.data).toEqual({ success: true, message: expect.stringContaining('gone-soft') });
    expectError(await app.call('GET', '/v3/users/gone-soft'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/users/gone-soft'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'gone-soft', name: 'again' } }), 409, 'ERR_UID_ALREADY_EXISTS');
    expect(expectOk(await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['gone-soft'] } })).data.nonDeactivatedUids).toEqual([]);
    const event = await userEvent(app.appId, 'UserDeleted', (data) => data.uid === 'gone-soft');
    expect(event.data.permanent).toBe(false);
  });

  it('deletes permanently: the uid can be created again, and UserDeleted says permanent true', async () => {
    expectOk(await app.call('DELETE', '/v3/users/gone-hard', { body: { permanent: true } }));
    expectError(await app.call('GET', '/v3/users/gone-hard'), 404, 'ERR_UID_NOT_FOUND');
    const event = await userEvent(app.appId, 'UserDeleted', (data) => data.uid === 'gone-hard');
    expect(event.data.permanent).toBe(true);
    const again = await makeUser(app, 'gone-hard', { name: 'Reborn' });
    expect(again.name).toBe('Reborn');
    expect(uidsOf(await app.call('GET', '/v3/users?searchKey=gone'))).toEqual(['gone-hard']);
  });

  it('refuses a delete with a non-boolean permanent and of an unknown user', async () => {
    expectError(await app.call('DELETE', '/v3/users/d3', { body: { permanent: 'yes' } }), 400, 'ERR_BAD_REQUEST', 'permanent');
    expectError(await app.call('DELETE', '/v3/users/ghost'), 404, 'ERR_UID_NOT_FOUND');
    expect(expectOk(await app.call('GET', '/v3/users/d3')).data.uid).toBe('d3');
  });
});
