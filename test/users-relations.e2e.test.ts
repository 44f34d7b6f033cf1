import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { commitCount } from './support/mongo.js';
import { expectError, expectOk, makeUser, uidsOf, userEvent } from './support/users.js';

describe('friends', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('friends');
    for (const [uid, name] of [['me', 'Me'], ['zed', 'Zed'], ['amy', 'Amy'], ['ben', 'Ben'], ['off', 'Off']]) await makeUser(app, uid as string, { name });
    expectOk(await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['off'] } }));
  });

  it('adds friends with per-uid results; friendship is mutual and listed by name', async () => {
    const added = expectOk(await app.call('POST', '/v3/users/me/friends', { body: { accepted: ['zed', 'AMY'] } }));
    expect(added.data).toEqual({
      accepted: {
        zed: { success: true, message: 'Created relationship with status accepted.' },
        amy: { success: true, message: 'Created relationship with status accepted.' },
      },
    });
    const listed = expectOk(await app.call('GET', '/v3/users/me/friends'));
    expect(listed.data.map((u: { uid: string }) => u.uid)).toEqual(['amy', 'zed']);
    expect(listed.data[0]).toMatchObject({ uid: 'amy', name: 'Amy', conversationId: 'amy_user_me', status: 'offline' });
    expect(listed.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
    expect(uidsOf(await app.call('GET', '/v3/users/zed/friends'))).toEqual(['me']);
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends?searchKey=ze'))).toEqual(['zed']);
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends?perPage=1&page=2'))).toEqual(['zed']);
    const event = await userEvent(app.appId, 'FriendsAdded', (data) => data.uid === 'me');
    expect(event.data.friendUids).toEqual(['zed', 'amy']);
  });

  it('reports an existing friendship per uid and adds the rest', async () => {
    const added = expectOk(await app.call('POST', '/v3/users/me/friends', { body: { accepted: ['zed', 'ben'] } }));
    expect(added.data.accepted.zed.success).toBe(false);
    expect(added.data.accepted.ben.success).toBe(true);
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends'))).toEqual(['amy', 'ben', 'zed']);
  });

  it.each([
    ['oneself', { accepted: ['me'] }, 400, 'ERR_CANNOT_FORM_SELF_RELATION'],
    ['an unknown user', { accepted: ['ghost'] }, 404, 'ERR_UID_NOT_FOUND'],
    ['a deactivated user', { accepted: ['off'] }, 404, 'ERR_UID_NOT_FOUND'],
    ['no list', {}, 400, 'ERR_BAD_REQUEST'],
    ['a list of numbers', { accepted: [1] }, 400, 'ERR_BAD_REQUEST'],
    ['an invalid uid', { accepted: ['no spaces'] }, 400, 'ERR_BAD_REQUEST'],
  ])('refuses to befriend %s and changes nothing', async (_label, body, status, code) => {
    const before = await commitCount('users', `user:${app.appId}:me`);
    expectError(await app.call('POST', '/v3/users/me/friends', { body }), status, code);
    expect(await commitCount('users', `user:${app.appId}:me`)).toBe(before);
  });

  it('removes friends from either side; removing a non-friend is a no-op', async () => {
    const removed = expectOk(await app.call('DELETE', '/v3/users/zed/friends', { body: { friends: ['me', 'amy'] } }));
    expect(removed.data.success).toBe(true);
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends'))).toEqual(['amy', 'ben']);
    expect(uidsOf(await app.call('GET', '/v3/users/zed/friends'))).toEqual([]);
    await userEvent(app.appId, 'FriendsRemoved', (data) => data.uid === 'zed');
    expectError(await app.call('DELETE', '/v3/users/zed/friends', { body: { friends: 'me' } }), 400, 'ERR_BAD_REQUEST', 'friends');
  });

  it('drops the friendships of a deleted user', async () => {
    await makeUser(app, 'temp');
    expectOk(await app.call('POST', '/v3/users/temp/friends', { body: { accepted: ['me'] } }));
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends'))).toContain('temp');
    expectOk(await app.call('DELETE', '/v3/users/temp', { body: { permanent: true } }));
    expect(uidsOf(await app.call('GET', '/v3/users/me/friends'))).toEqual(['amy', 'ben']);
    await makeUser(app, 'temp');
    expect(uidsOf(await app.call('GET', '/v3/users/temp/friends'))).toEqual([]);
  });

  it('answers an unknown or deactivated acting user with 404', async () => {
    expectError(await app.call('GET', '/v3/users/ghost/friends'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/off/friends', { body: { accepted: ['me'] } }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/users/ghost/friends', { body: { friends: ['me'] } }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('GET', '/v3/users/me/friends?perPage=0'), 400, 'ERR_BAD_REQUEST', 'perPage');
  });
});

describe('blocked users', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('blocks');
    for (const uid of ['blocker', 'pest', 'noisy', 'calm']) await makeUser(app, uid);
  });

  it('blocks users with per-uid results and publishes UsersBlocked with only the new ones', async () => {
    const blocked = expectOk(await app.call('POST', '/v3/users/blocker/blockedusers', { body: { blockedUids: ['pest'] } }));
    expect(blocked.data).toEqual({ pest: { success: true, message: expect.stringContaining('has blocked user with UID pest') } });
    const again = expectOk(await app.call('POST', '/v3/users/blocker/blockedusers', { body: { blockedUids: ['pest', 'noisy'] } }));
    expect(Object.keys(again.data)).toEqual(['pest', 'noisy']);
    const first = await userEvent(app.appId, 'UsersBlocked', (data) => data.uid === 'blocker' && data.blockedUids.includes('pest'));
    expect(first.data).toEqual({ uid: 'blocker', blockedUids: ['pest'], blockedAt: expect.any(Number) });
    const second = await userEvent(app.appId, 'UsersBlocked', (data) => data.uid === 'blocker' && data.blockedUids.includes('noisy'));
    expect(second.data.blockedUids).toEqual(['noisy']);
    // Blocking an already blocked user writes nothing.
    const before = await commitCount('users', `user:${app.appId}:blocker`);
    expectOk(await app.call('POST', '/v3/users/blocker/blockedusers', { body: { blockedUids: ['pest'] } }));
    expect(await commitCount('users', `user:${app.appId}:blocker`)).toBe(before);
  });

  it('lists blocked users with blockedByMe and the time', async () => {
    const listed = expectOk(await app.call('GET', '/v3/users/blocker/blockedusers'));
    expect(listed.data.map((u: { uid: string }) => u.uid)).toEqual(['noisy', 'pest']);
    expect(listed.data[0]).toMatchObject({ uid: 'noisy', blockedByMe: true, conversationId: 'blocker_user_noisy' });
    expect(Number.isInteger(listed.data[0].blockedByMeAt)).toBe(true);
    expect(listed.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
    expect(uidsOf(await app.call('GET', '/v3/users/pest/blockedusers'))).toEqual([]);
  });

  it('unblocks with per-uid results and publishes UsersUnblocked', async () => {
    const result = expectOk(await app.call('DELETE', '/v3/users/blocker/blockedusers', { body: { blockedUids: ['pest', 'calm'] } }));
    expect(result.data.pest.success).toBe(true);
    expect(result.data.calm.success).toBe(false);
    const event = await userEvent(app.appId, 'UsersUnblocked', (data) => data.uid === 'blocker');
    expect(event.data).toEqual({ uid: 'blocker', unblockedUids: ['pest'], unblockedAt: expect.any(Number) });
    expect(uidsOf(await app.call('GET', '/v3/users/blocker/blockedusers'))).toEqual(['noisy']);
  });

  it.each([
    ['POST', 'oneself', { blockedUids: ['blocker'] }, 400, 'ERR_CANNOT_BLOCK_SELF'],
    ['POST', 'an unknown user', { blockedUids: ['ghost'] }, 404, 'ERR_UID_NOT_FOUND'],
    ['POST', 'no list', {}, 400, 'ERR_BAD_REQUEST'],
    ['POST', 'a string instead of a list', { blockedUids: 'pest' }, 400, 'ERR_BAD_REQUEST'],
    ['DELETE', 'no list', {}, 400, 'ERR_BAD_REQUEST'],
  ])('%s refuses %s and changes nothing', async (method, _label, body, status, code) => {
    const before = await commitCount('users', `user:${app.appId}:blocker`);
    expectError(await app.call(method, '/v3/users/blocker/blockedusers', { body }), status, code);
    expect(await commitCount('users', `user:${app.appId}:blocker`)).toBe(before);
  });

  it('answers an unknown acting user with 404', async () => {
    expectError(await app.call('GET', '/v3/users/ghost/blockedusers'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/ghost/blockedusers', { body: { blockedUids: ['pest'] } }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/users/ghost/blockedusers', { body: { blockedUids: ['pest'] } }), 404, 'ERR_UID_NOT_FOUND');
  });
});
