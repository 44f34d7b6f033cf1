import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, createUsers, expectError, memberScopes } from './support/groups.js';
import { readBack } from './support/kafka.js';
import { commitCount } from './support/mongo.js';

describe('group members: add, join, list, scope, kick, leave', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('group members');
    await createUsers(app, 'boss', 'a1', 'a2', 'm1', 'm2', 'p1', 'p2', 'p3', 'joiner', 'stranger');
    await createGroup(app, { guid: 'team', name: 'Team', type: 'public' }, 'boss');
  });

  const add = (guid: string, body: Record<string, unknown>, onBehalfOf?: string) =>
    app.call('POST', `/v3/groups/${guid}/members`, { body, ...(onBehalfOf !== undefined ? { onBehalfOf } : {}) });

  it('adds admins, moderators and participants and answers per uid, with failures beside successes', async () => {
    const response = await add('team', { admins: ['a1'], moderators: ['m1'], participants: ['p1', 'P2', 'ghost'], usersToBan: ['p3'] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const data = response.body.data;
    expect(Object.keys(data).sort()).toEqual(['admins', 'moderators', 'participants', 'usersToBan']);
    expect(data.admins.a1).toMatchObject({ success: true, data: { guid: 'team', uid: 'a1', scope: 'admin', joinedAt: expect.any(Number) } });
    expect(data.moderators.m1).toMatchObject({ success: true, data: { scope: 'moderator' } });
    expect(data.participants.p1).toMatchObject({ success: true, data: { scope: 'participant' } });
    expect(data.participants.p2).toMatchObject({ success: true });
    expect(data.participants.ghost).toEqual({ success: false, error: { code: 'ERR_UID_NOT_FOUND', message: expect.any(String) } });
    expect(data.usersToBan.p3).toEqual({ success: true });

    expect(await memberScopes(app, 'team')).toEqual({ boss: 'admin', a1: 'admin', m1: 'moderator', p1: 'participant', p2: 'participant' });
    expect((await app.call('GET', '/v3/groups/team')).body.data.membersCount).toBe(5);

    const again = await add('team', { participants: ['p1', 'p3'] });
    expect(again.body.data.participants.p1.error.code).toBe('ERR_ALREADY_JOINED');
    expect(again.body.data.participants.p3.error.code).toBe('ERR_BANNED_GROUPMEMBER');

    const event = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMembersAdded' && v['appId'] === app.appId && (v['data'] as { members: unknown[] }).members.length === 4,
    );
    expect(event.value).toMatchObject({
      streamId: `group:${app.appId}:team`,
      data: { guid: 'team', members: [{ uid: 'a1', scope: 'admin' }, { uid: 'm1', scope: 'moderator' }, { uid: 'p1', scope: 'participant' }, { uid: 'p2', scope: 'participant' }], membersCount: 5 },
    });
    expect(event.value['data']).not.toHaveProperty('addedBy');
  });

  it('lists members with user profiles, scope filters and paging', async () => {
    const all = await app.call('GET', '/v3/groups/team/members');
    expect(all.status).toBe(200);
    expect(all.body.data[0]).toMatchObject({ uid: 'boss', name: 'User boss', scope: 'admin', status: 'offline', role: 'default', joinedAt: expect.any(Number), createdAt: expect.any(Number) });
    expect(all.body.meta.pagination).toEqual({ total: 5, count: 5, per_page: 100, current_page: 1, total_pages: 1 });
    expect(all.body.cursor).toMatchObject({ affix: 'append', updatedAt: expect.any(Number) });

    const staff = await app.call('GET', '/v3/groups/team/members?scopes=admin,moderator');
    expect(staff.body.data.map((m: { uid: string }) => m.uid).sort()).toEqual(['a1', 'boss', 'm1']);
    const page = await app.call('GET', '/v3/groups/team/members?perPage=2&page=3');
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toMatchObject({ total: 5, count: 1, per_page: 2, current_page: 3, total_pages: 3 });
    expect((await app.call('GET', '/v3/groups/team/members?status=available')).body.data).toEqual([]);
    expectError(await app.call('GET', '/v3/groups/team/members?scopes=owner'), 400, 'ERR_BAD_REQUEST', 'scopes');
    expectError(await app.call('GET', '/v3/groups/nope/members'), 404, 'ERR_GUID_NOT_FOUND');
  });

  it('lets users join public groups by adding themselves, and password groups with the password only', async () => {
    const joined = await add('team', { participants: ['joiner'] }, 'joiner');
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.data.participants.joiner).toMatchObject({ success: true, data: { scope: 'participant' } });
    const event = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMemberJoined' && v['appId'] === app.appId && (v['data'] as { uid: string }).uid === 'joiner',
    );
    expect(event.value['data']).toMatchObject({ guid: 'team', uid: 'joiner', scope: 'participant', membersCount: 6 });
    expectError(await add('team', { participants: ['joiner'] }, 'joiner'), 409, 'ERR_ALREADY_JOINED');

    await createGroup(app, { guid: 'vault', name: 'Vault', type: 'password', password: 'open sesame' }, 'boss');
    expectError(await add('vault', { participants: ['joiner'] }, 'joiner'), 400, 'ERR_EMPTY_GROUP_PASS');
    expectError(await add('vault', { participants: ['joiner'], password: 'wrong' }, 'joiner'), 403, 'ERR_WRONG_GROUP_PASS');
    const inside = await add('vault', { participants: ['joiner'], password: 'open sesame' }, 'joiner');
    expect(inside.status, JSON.stringify(inside.body)).toBe(200);
    expect((await app.call('GET', '/v3/groups/vault', { onBehalfOf: 'joiner' })).body.data).toMatchObject({ hasJoined: true, scope: 'participant' });

    await createGroup(app, { guid: 'club', name: 'Club', type: 'private' }, 'boss');
    expectError(await add('club', { participants: ['joiner'] }, 'joiner'), 403, 'ERR_GROUP_JOIN_NOT_ALLOWED');
    expectError(await add('team', { admins: ['stranger'] }, 'stranger'), 403, 'ERR_GROUP_NO_ADMIN_SCOPE');
  });

  it('lets moderators add participants only, admins add any scope, and nobody outside add anyone', async () => {
    expectError(await add('team', { participants: ['stranger'] }, 'p1'), 403, 'ERR_GROUP_NO_MODERATOR_SCOPE');
    expectError(await add('team', { moderators: ['stranger'] }, 'm1'), 403, 'ERR_GROUP_NO_ADMIN_SCOPE');
    expectError(await add('club', { participants: ['stranger'] }, 'joiner'), 403, 'ERR_GROUP_NOT_JOINED');
    const byModerator = await add('club', { participants: ['a2'] }, 'boss');
    expect(byModerator.body.data.participants.a2.success).toBe(true);
    expectError(await add('team', { participants: ['x'], admins: ['x'] }), 400, 'ERR_BAD_REQUEST', 'more than one list');
    expectError(await add('team', {}), 400, 'ERR_BAD_REQUEST', 'at least one uid');
    expectError(await add('team', { participants: 'p1' }), 400, 'ERR_BAD_REQUEST', 'participants');
    expectError(await add('nope', { participants: ['p1'] }), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await add('team', { participants: ['p1'] }, 'ghost'), 404, 'ERR_UID_NOT_FOUND');
  });

  it('changes scopes: only admins, never their own, never the owner, never to the same scope', async () => {
    const scope = (uid: string, body: unknown, onBehalfOf?: string) =>
      app.call('PUT', `/v3/groups/team/members/${uid}`, { body, ...(onBehalfOf !== undefined ? { onBehalfOf } : {}) });
    const changed = await scope('p1', { scope: 'moderator' }, 'a1');
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual({ data: { guid: 'team', uid: 'p1', scope: 'moderator', joinedAt: expect.any(Number) } });
    const event = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMemberScopeChanged' && v['appId'] === app.appId,
    );
    expect(event.value['data']).toMatchObject({ guid: 'team', uid: 'p1', scope: 'moderator', previousScope: 'participant', changedBy: 'a1' });

    expectError(await scope('p2', { scope: 'moderator' }, 'm1'), 403, 'ERR_GROUP_NO_ADMIN_SCOPE');
    expectError(await scope('a1', { scope: 'participant' }, 'a1'), 403, 'ERR_GROUP_NO_SELF_ACTION');
    expectError(await scope('boss', { scope: 'participant' }, 'a1'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await scope('boss', { scope: 'participant' }), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await scope('p1', { scope: 'moderator' }), 400, 'ERR_SAME_SCOPE');
    expectError(await scope('stranger', { scope: 'moderator' }), 404, 'ERR_NOT_A_MEMBER');
    expectError(await scope('p1', { scope: 'owner' }), 400, 'ERR_BAD_REQUEST', 'scope');
    // An admin may not demote another admin; the owner may.
    expectError(await scope('a1', { scope: 'moderator' }, 'a2'), 403, 'ERR_GROUP_NOT_JOINED');
    await add('team', { admins: ['a2'] });
    expectError(await scope('a1', { scope: 'moderator' }, 'a2'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expect((await scope('a2', {}, 'boss')).body.data.scope).toBe('participant');
    expect((await memberScopes(app, 'team'))['a2']).toBe('participant');
  });

  it('kicks: moderators and above, only lower scopes, never the owner; a user kicking themselves leaves', async () => {
    const kick = (uid: string, onBehalfOf?: string) =>
      app.call('DELETE', `/v3/groups/team/members/${uid}`, onBehalfOf !== undefined ? { onBehalfOf } : {});
    expectError(await kick('p2', 'a2'), 403, 'ERR_GROUP_NO_MODERATOR_SCOPE');
    expectError(await kick('p1', 'm1'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await kick('boss', 'a1'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await kick('boss'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await kick('stranger'), 404, 'ERR_NOT_A_MEMBER');
    expectError(await kick('boss', 'boss'), 403, 'ERR_GROUP_NO_CLEARANCE', 'ownership');

    const kicked = await kick('p2', 'm1');
    expect(kicked.status).toBe(200);
    expect(kicked.body).toEqual({ data: { success: true, message: expect.stringContaining('kicked') } });
    const kickedEvent = await readBack('chat.conversations.events', (v) => v['type'] === 'GroupMemberKicked' && v['appId'] === app.appId);
    expect(kickedEvent.value['data']).toMatchObject({ guid: 'team', uid: 'p2', kickedBy: 'm1' });

    const left = await kick('joiner', 'joiner');
    expect(left.body.data.message).toContain('left');
    const leftEvent = await readBack('chat.conversations.events', (v) => v['type'] === 'GroupMemberLeft' && v['appId'] === app.appId);
    expect(leftEvent.value['data']).toMatchObject({ guid: 'team', uid: 'joiner' });
    const members = await memberScopes(app, 'team');
    expect(members).not.toHaveProperty('p2');
    expect(members).not.toHaveProperty('joiner');
    expect((await app.call('GET', '/v3/groups/team')).body.data.membersCount).toBe(Object.keys(members).length);
  });
});

describe('banned users: ban, unban, list', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('group bans');
    await createUsers(app, 'king', 'mod', 'pawn', 'rook', 'visitor');
    await createGroup(app, { guid: 'realm', name: 'Realm', type: 'public', members: { moderators: ['mod'], participants: ['pawn', 'rook'] } }, 'king');
  });

  const ban = (uid: string, onBehalfOf?: string) =>
    app.call('POST', `/v3/groups/realm/bannedusers/${uid}`, onBehalfOf !== undefined ? { onBehalfOf } : {});
  const unban = (uid: string, onBehalfOf?: string) =>
    app.call('DELETE', `/v3/groups/realm/bannedusers/${uid}`, onBehalfOf !== undefined ? { onBehalfOf } : {});

  it('bans a member (removing the membership) and a non-member, and lists them', async () => {
    const banned = await ban('pawn', 'mod');
    expect(banned.status, JSON.stringify(banned.body)).toBe(200);
    expect(banned.body).toEqual({ data: { success: true, message: expect.stringContaining('banned') } });
    expect(await ban('visitor')).toMatchObject({ status: 200 });
    expect(await memberScopes(app, 'realm')).toEqual({ king: 'admin', mod: 'moderator', rook: 'participant' });
    expect((await app.call('GET', '/v3/groups/realm')).body.data.membersCount).toBe(3);

    const listed = await app.call('GET', '/v3/groups/realm/bannedusers');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((u: { uid: string }) => u.uid)).toEqual(['pawn', 'visitor']);
    expect(listed.body.data[0]).toMatchObject({ uid: 'pawn', name: 'User pawn', status: 'offline', role: 'default', createdAt: expect.any(Number) });
    expect(listed.body.meta.pagination).toEqual({ total: 2, count: 2, per_page: 100, current_page: 1, total_pages: 1 });
    const paged = await app.call('GET', '/v3/groups/realm/bannedusers?perPage=1&page=2');
    expect(paged.body.data.map((u: { uid: string }) => u.uid)).toEqual(['visitor']);

    const event = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMemberBanned' && v['appId'] === app.appId && (v['data'] as { uid: string }).uid === 'pawn',
    );
    expect(event.value['data']).toMatchObject({ guid: 'realm', uid: 'pawn', bannedBy: 'mod', wasMember: true, membersCount: 3 });
  });

  it('keeps banned users out: they cannot join or be added until unbanned', async () => {
    expectError(await app.call('POST', '/v3/groups/realm/members', { body: { participants: ['pawn'] }, onBehalfOf: 'pawn' }), 403, 'ERR_BANNED_GROUPMEMBER');
    const added = await app.call('POST', '/v3/groups/realm/members', { body: { participants: ['pawn'] } });
    expect(added.body.data.participants.pawn.error.code).toBe('ERR_BANNED_GROUPMEMBER');
  });

  it('refuses bans without clearance, of the owner, of oneself, twice, and of unknown users or groups', async () => {
    const commits = await commitCount('conversations', `group:${app.appId}:realm`);
    expectError(await ban('rook', 'rook'), 403, 'ERR_GROUP_NO_SELF_ACTION');
    expectError(await ban('mod', 'rook'), 403, 'ERR_GROUP_NO_MODERATOR_SCOPE');
    expectError(await ban('king', 'mod'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await ban('king'), 403, 'ERR_GROUP_NO_CLEARANCE');
    expectError(await ban('pawn'), 409, 'ERR_ALREADY_BANNED');
    expectError(await ban('ghost'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/groups/nope/bannedusers/rook'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await unban('rook'), 404, 'ERR_NOT_A_BANNED_USER');
    expectError(await unban('pawn', 'rook'), 403, 'ERR_GROUP_NO_MODERATOR_SCOPE');
    expectError(await app.call('GET', '/v3/groups/nope/bannedusers'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('GET', '/v3/groups/realm/bannedusers?perPage=abc'), 400, 'ERR_BAD_REQUEST', 'perPage');
    expect(await commitCount('conversations', `group:${app.appId}:realm`)).toBe(commits);
  });

  it('unbans: the user is off the list and may join again', async () => {
    const unbanned = await unban('pawn', 'mod');
    expect(unbanned.status).toBe(200);
    expect(unbanned.body).toEqual({ data: { success: true, message: expect.stringContaining('unbanned') } });
    const event = await readBack('chat.conversations.events', (v) => v['type'] === 'GroupMemberUnbanned' && v['appId'] === app.appId);
    expect(event.value['data']).toMatchObject({ guid: 'realm', uid: 'pawn', unbannedBy: 'mod' });
    expect((await app.call('GET', '/v3/groups/realm/bannedusers')).body.data.map((u: { uid: string }) => u.uid)).toEqual(['visitor']);
    const rejoined = await app.call('POST', '/v3/groups/realm/members', { body: { participants: ['pawn'] }, onBehalfOf: 'pawn' });
    expect(rejoined.status, JSON.stringify(rejoined.body)).toBe(200);
    expect((await memberScopes(app, 'realm'))['pawn']).toBe('participant');
  });
});
