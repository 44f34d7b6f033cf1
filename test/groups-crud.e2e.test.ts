import { eventEnvelopeSchema } from '@chat/contracts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, createUsers, expectError, memberScopes } from './support/groups.js';
import { groupHasConsumed, readBack } from './support/kafka.js';
import { commitCount } from './support/mongo.js';

describe('groups: create, get, list, update, delete', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('groups crud');
    await createUsers(app, 'owner1', 'adm1', 'mod1', 'part1', 'banme', 'other');
  });

  it('creates a group for the acting user, with members at creation, and shows it in CometChat shape', async () => {
    const before = Math.floor(Date.now() / 1000);
    const created = await createGroup(
      app,
      {
        guid: 'Project-Group',
        name: 'Project Group',
        type: 'public',
        icon: 'https://example.com/g.png',
        description: 'All about the project',
        metadata: { 'a.b': 1, $c: [[1]] },
        tags: ['friends', 'project'],
        members: { admins: ['adm1'], moderators: ['mod1'], participants: ['part1'], usersToBan: ['banme'] },
      },
      'owner1',
    );
    const group = created.body.data;
    expect(Object.keys(created.body)).toEqual(['data']);
    expect(group).toMatchObject({
      guid: 'project-group',
      name: 'Project Group',
      description: 'All about the project',
      icon: 'https://example.com/g.png',
      type: 'public',
      metadata: { 'a.b': 1, $c: [[1]] },
      owner: 'owner1',
      scope: 'admin',
      membersCount: 4,
      conversationId: 'group_project-group',
      hasJoined: true,
      tags: ['friends', 'project'],
    });
    expect(group.createdAt).toBeGreaterThanOrEqual(before);
    expect(group.createdAt).toBeLessThan(before + 60);
    expect(group.joinedAt).toBe(group.createdAt);
    expect(group).not.toHaveProperty('password');

    expect(await memberScopes(app, 'project-group')).toEqual({ owner1: 'admin', adm1: 'admin', mod1: 'moderator', part1: 'participant' });
    const banned = await app.call('GET', '/v3/groups/project-group/bannedusers');
    expect(banned.body.data.map((u: { uid: string }) => u.uid)).toEqual(['banme']);

    const asApp = await app.call('GET', '/v3/groups/project-group');
    expect(asApp.status).toBe(200);
    expect(asApp.body.data).not.toHaveProperty('hasJoined');
    expect(asApp.body.data).not.toHaveProperty('scope');
    const asOther = await app.call('GET', '/v3/groups/PROJECT-GROUP', { onBehalfOf: 'other' });
    expect(asOther.body.data).toMatchObject({ guid: 'project-group', hasJoined: false, membersCount: 4 });
    expect(asOther.body.data).not.toHaveProperty('scope');
    const asModerator = await app.call('GET', '/v3/groups/project-group', { onBehalfOf: 'mod1' });
    expect(asModerator.body.data).toMatchObject({ scope: 'moderator', hasJoined: true });
  });

  it('publishes GroupCreated and GroupMembersAdded on chat.conversations.events under the group stream', async () => {
    await createGroup(app, { guid: 'evented', name: 'Evented', type: 'password', password: 'secret-1' }, 'owner1');
    const created = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupCreated' && v['appId'] === app.appId && (v['data'] as { guid?: string }).guid === 'evented',
    );
    const envelope = eventEnvelopeSchema.parse(created.value);
    expect(envelope).toMatchObject({
      streamId: `group:${app.appId}:evented`,
      version: 1,
      data: { guid: 'evented', name: 'Evented', type: 'password', owner: 'owner1', tags: [], createdBy: 'owner1' },
    });
    const hash = (envelope.data as { passwordHash: string }).passwordHash;
    expect(hash).toMatch(/^scrypt\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(envelope)).not.toContain('secret-1');
    const added = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMembersAdded' && v['appId'] === app.appId && (v['data'] as { guid?: string }).guid === 'evented',
    );
    expect(added.value).toMatchObject({ version: 2, data: { members: [{ uid: 'owner1', scope: 'admin' }], addedBy: 'owner1', membersCount: 1 } });

    // The service's own consumer applies the same events again: the read model does not move.
    const before = await app.call('GET', '/v3/groups/evented', { onBehalfOf: 'owner1' });
    await groupHasConsumed(`conversations.read-models.chat_conversations_${inject('databaseSuffix')}`, 'chat.conversations.events', added.partition, added.offset);
    expect(await app.call('GET', '/v3/groups/evented', { onBehalfOf: 'owner1' })).toMatchObject({ status: 200, body: before.body });
  });

  it('creates a group without an owner when the app acts alone: no owner, no member', async () => {
    const created = await createGroup(app, { guid: 'ownerless', name: 'Nobody owns me', type: 'private' });
    expect(created.body.data).toMatchObject({ guid: 'ownerless', membersCount: 0, type: 'private' });
    expect(created.body.data).not.toHaveProperty('owner');
    expect(await memberScopes(app, 'ownerless')).toEqual({});
  });

  it('two racing creates of one guid make exactly one group', async () => {
    const body = { guid: 'racer', name: 'Racer', type: 'public' };
    const results = await Promise.all([
      app.call('POST', '/v3/groups', { body, onBehalfOf: 'owner1' }),
      app.call('POST', '/v3/groups', { body, onBehalfOf: 'adm1' }),
      app.call('POST', '/v3/groups', { body }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409)) expect(refused.body.error.code).toBe('ERR_GUID_ALREADY_EXISTS');
    expect(await commitCount('conversations', `group:${app.appId}:racer`)).toBe(1);
  });

  it.each([
    ['no guid', { name: 'N', type: 'public' }, 400, 'ERR_BAD_REQUEST', 'guid'],
    ['a guid with spaces', { guid: 'has space', name: 'N', type: 'public' }, 400, 'ERR_BAD_REQUEST', 'guid'],
    ['a 101-character guid', { guid: 'g'.repeat(101), name: 'N', type: 'public' }, 400, 'ERR_BAD_REQUEST', 'guid'],
    ['no name', { guid: 'g1', type: 'public' }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['a 101-character name', { guid: 'g1', name: 'n'.repeat(101), type: 'public' }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['an unknown type', { guid: 'g1', name: 'N', type: 'secret' }, 400, 'ERR_BAD_REQUEST', 'type'],
    ['a number as name', { guid: 'g1', name: 7, type: 'public' }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['a password group without password', { guid: 'g1', name: 'N', type: 'password' }, 400, 'ERR_EMPTY_GROUP_PASS', 'password'],
    ['a 101-character password', { guid: 'g1', name: 'N', type: 'password', password: 'p'.repeat(101) }, 400, 'ERR_BAD_REQUEST', 'password'],
    ['an icon that is not a URL', { guid: 'g1', name: 'N', type: 'public', icon: 'nope' }, 400, 'ERR_BAD_REQUEST', 'icon'],
    ['a 256-character description', { guid: 'g1', name: 'N', type: 'public', description: 'd'.repeat(256) }, 400, 'ERR_BAD_REQUEST', 'description'],
    ['26 tags', { guid: 'g1', name: 'N', type: 'public', tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }, 400, 'ERR_BAD_REQUEST', 'tags'],
    ['metadata over 5 KB', { guid: 'g1', name: 'N', type: 'public', metadata: { blob: 'x'.repeat(5200) } }, 400, 'ERR_BAD_REQUEST', 'metadata'],
    ['metadata that is an array', { guid: 'g1', name: 'N', type: 'public', metadata: [1] }, 400, 'ERR_BAD_REQUEST', 'metadata'],
    ['members that is a string', { guid: 'g1', name: 'N', type: 'public', members: 'x' }, 400, 'ERR_BAD_REQUEST', 'members'],
    ['a uid in two member lists', { guid: 'g1', name: 'N', type: 'public', members: { admins: ['adm1'], participants: ['adm1'] } }, 400, 'ERR_BAD_REQUEST', 'more than one list'],
    ['an unknown owner', { guid: 'g1', name: 'N', type: 'public', owner: 'ghost' }, 404, 'ERR_UID_NOT_FOUND', 'ghost'],
    ['an unknown member', { guid: 'g1', name: 'N', type: 'public', members: { participants: ['part1', 'ghost2'] } }, 404, 'ERR_UID_NOT_FOUND', 'ghost2'],
    ['banning the owner', { guid: 'g1', name: 'N', type: 'public', owner: 'owner1', members: { usersToBan: ['owner1'] } }, 403, 'ERR_GROUP_NO_CLEARANCE', undefined],
  ])('refuses to create with %s and changes nothing', async (_label, body, status, code, mentions) => {
    expectError(await app.call('POST', '/v3/groups', { body }), status, code, mentions);
    expectError(await app.call('GET', '/v3/groups/g1'), 404, 'ERR_GUID_NOT_FOUND');
    expect(await commitCount('conversations', `group:${app.appId}:g1`)).toBe(0);
  });

  it('refuses malformed JSON, an unknown acting user, the authOnly key and another app\'s key', async () => {
    expectError(await app.call('POST', '/v3/groups', { rawBody: '{"guid": "x",' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/groups', { body: { guid: 'g2', name: 'N', type: 'public' }, onBehalfOf: 'ghost' }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/groups', { body: { guid: 'g2', name: 'N', type: 'public' }, apiKey: app.authOnlyKey }), 403, 'AUTH_ERR_NO_ACCESS');
    const otherApp = await createApp('groups other tenant');
    expectError(await call('GET', '/v3/groups/project-group', { appId: app.appId, apiKey: otherApp.fullAccessKey }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
    expectError(await otherApp.call('GET', '/v3/groups/project-group'), 404, 'ERR_GUID_NOT_FOUND');
    expect((await otherApp.call('GET', '/v3/groups')).body.data).toEqual([]);
    expectError(await app.call('GET', '/v3/groups/not%20valid'), 404, 'ERR_GUID_NOT_FOUND');
  });

  it('updates fields, unsets optional ones, changes the password and hands over ownership', async () => {
    await createGroup(app, { guid: 'upd', name: 'Before', type: 'public', icon: 'https://example.com/i.png', description: 'd', metadata: { k: 1 }, tags: ['a'] }, 'owner1');
    const updated = await app.call('PUT', '/v3/groups/upd', {
      onBehalfOf: 'owner1',
      body: { name: 'After', tags: ['b', 'c'], unset: ['icon', 'metadata'], type: 'password', password: 'pw' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ guid: 'upd', name: 'After', tags: ['b', 'c'], type: 'password', description: 'd', owner: 'owner1' });
    expect(updated.body.data).not.toHaveProperty('icon');
    expect(updated.body.data).not.toHaveProperty('metadata');
    expect(updated.body.data.updatedAt).toBeGreaterThanOrEqual(updated.body.data.createdAt);

    const handedOver = await app.call('PUT', '/v3/groups/upd', { onBehalfOf: 'owner1', body: { owner: 'other' } });
    expect(handedOver.status, JSON.stringify(handedOver.body)).toBe(200);
    expect(handedOver.body.data.owner).toBe('other');
    expect(await memberScopes(app, 'upd')).toEqual({ owner1: 'admin', other: 'admin' });
    const event = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupUpdated' && v['appId'] === app.appId && (v['data'] as { changes: { owner?: string } }).changes.owner === 'other',
    );
    expect(event.value).toMatchObject({ streamId: `group:${app.appId}:upd`, data: { guid: 'upd', changes: { owner: 'other' }, removed: [], updatedBy: 'owner1' } });
    const updatedAt = event.value['version'] as number;
    const promoted = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'GroupMembersAdded' && v['streamId'] === `group:${app.appId}:upd` && v['version'] === updatedAt - 1,
    );
    expect(promoted.value['data']).toMatchObject({ guid: 'upd', members: [{ uid: 'other', scope: 'admin' }], addedBy: 'owner1' });
    // The old owner is an admin now, and may no longer hand over the ownership.
    expectError(await app.call('PUT', '/v3/groups/upd', { onBehalfOf: 'owner1', body: { owner: 'owner1' } }), 403, 'ERR_GROUP_NO_CLEARANCE');
  });

  it('refuses updates from members without the admin scope, and bad update bodies', async () => {
    await createGroup(app, { guid: 'upd2', name: 'N', type: 'public', members: { participants: ['part1'] } }, 'owner1');
    expectError(await app.call('PUT', '/v3/groups/upd2', { onBehalfOf: 'part1', body: { name: 'X' } }), 403, 'ERR_GROUP_NO_ADMIN_SCOPE');
    expectError(await app.call('PUT', '/v3/groups/upd2', { onBehalfOf: 'other', body: { name: 'X' } }), 403, 'ERR_GROUP_NOT_JOINED');
    expectError(await app.call('PUT', '/v3/groups/upd2', { body: { name: '' } }), 400, 'ERR_BAD_REQUEST', 'name');
    expectError(await app.call('PUT', '/v3/groups/upd2', { body: { unset: ['name'] } }), 400, 'ERR_BAD_REQUEST', 'unset');
    expectError(await app.call('PUT', '/v3/groups/upd2', { body: { icon: 'https://x.io/a.png', unset: ['icon'] } }), 400, 'ERR_BAD_REQUEST', 'unset');
    expectError(await app.call('PUT', '/v3/groups/upd2', { body: { type: 'password' } }), 400, 'ERR_EMPTY_GROUP_PASS');
    expectError(await app.call('PUT', '/v3/groups/upd2', { body: { owner: 'ghost' } }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/groups/nope', { body: { name: 'X' } }), 404, 'ERR_GUID_NOT_FOUND');
    const unchanged = await app.call('GET', '/v3/groups/upd2');
    expect(unchanged.body.data).toMatchObject({ name: 'N', type: 'public', owner: 'owner1' });
    const commits = await commitCount('conversations', `group:${app.appId}:upd2`);
    expect((await app.call('PUT', '/v3/groups/upd2', { body: { name: 'N' } })).status).toBe(200);
    expect(await commitCount('conversations', `group:${app.appId}:upd2`)).toBe(commits);
  });

  it('deletes a group: gone from get and list; only admins may; the guid can be created again, empty', async () => {
    await createGroup(app, { guid: 'doomed', name: 'Doomed', type: 'public', members: { moderators: ['mod1'], usersToBan: ['banme'] } }, 'owner1');
    expectError(await app.call('DELETE', '/v3/groups/doomed', { onBehalfOf: 'mod1' }), 403, 'ERR_GROUP_NO_ADMIN_SCOPE');
    const deleted = await app.call('DELETE', '/v3/groups/doomed', { onBehalfOf: 'owner1' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { success: true, message: expect.stringContaining('doomed') } });
    const event = await readBack('chat.conversations.events', (v) => v['type'] === 'GroupDeleted' && v['appId'] === app.appId);
    expect(event.value).toMatchObject({ streamId: `group:${app.appId}:doomed`, data: { guid: 'doomed', deletedBy: 'owner1' } });
    expectError(await app.call('GET', '/v3/groups/doomed'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('GET', '/v3/groups/doomed/members'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/groups/doomed'), 404, 'ERR_GUID_NOT_FOUND');
    const listed = await app.call('GET', '/v3/groups?perPage=1000');
    expect(listed.body.data.map((g: { guid: string }) => g.guid)).not.toContain('doomed');

    const again = await createGroup(app, { guid: 'doomed', name: 'Reborn', type: 'public' });
    expect(again.body.data).toMatchObject({ name: 'Reborn', membersCount: 0 });
    expect(await memberScopes(app, 'doomed')).toEqual({});
    expect((await app.call('GET', '/v3/groups/doomed/bannedusers')).body.data).toEqual([]);
  });
});

describe('groups: list filters, sorting and paging', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('groups list');
    await createUsers(app, 'lister', 'outsider');
    await createGroup(app, { guid: 'alpha', name: 'Alpha Team', type: 'public', tags: ['work'] }, 'lister');
    await createGroup(app, { guid: 'bravo', name: 'bravo club', type: 'password', password: 'pw', tags: ['fun'] });
    await createGroup(app, { guid: 'charlie', name: 'Charlie', type: 'private', description: 'secret plans', tags: ['work', 'fun'] }, 'lister');
    await createGroup(app, { guid: 'delta', name: 'Delta', type: 'private' });
  });

  const guids = async (query: string, onBehalfOf?: string) => {
    const response = await app.call('GET', `/v3/groups${query}`, onBehalfOf !== undefined ? { onBehalfOf } : {});
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return (response.body.data as Array<{ guid: string }>).map((g) => g.guid);
  };

  it('lists every group for the app by name, case-insensitively, with pagination meta and a cursor', async () => {
    const response = await app.call('GET', '/v3/groups');
    expect(response.body.data.map((g: { guid: string }) => g.guid)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(response.body.meta.pagination).toEqual({ total: 4, count: 4, per_page: 100, current_page: 1, total_pages: 1 });
    expect(response.body.meta.cursor).toMatchObject({ affix: 'append', updatedAt: expect.any(Number) });
    expect(response.body.data[0]).not.toHaveProperty('tags');
  });

  it('pages, sorts, filters and searches', async () => {
    const page2 = await app.call('GET', '/v3/groups?perPage=3&page=2');
    expect(page2.body.data.map((g: { guid: string }) => g.guid)).toEqual(['delta']);
    expect(page2.body.meta.pagination).toEqual({ total: 4, count: 1, per_page: 3, current_page: 2, total_pages: 2 });
    expect(await guids('?sortBy=guid&sortOrder=desc')).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
    expect(await guids('?sortBy=createdAt&sortOrder=asc')).toHaveLength(4);
    expect(await guids('?type=private')).toEqual(['charlie', 'delta']);
    expect(await guids('?types=public,password')).toEqual(['alpha', 'bravo']);
    expect(await guids('?tags=fun')).toEqual(['bravo', 'charlie']);
    expect(await guids('?searchKey=CLUB')).toEqual(['bravo']);
    expect(await guids('?searchKey=plans&searchIn=description')).toEqual(['charlie']);
    expect(await guids('?searchKey=a.*')).toEqual([]);
    expect(await guids('?searchKey=&tags=')).toHaveLength(4);
    const tagged = await app.call('GET', '/v3/groups?withTags=true&tags=work');
    expect(tagged.body.data.map((g: { tags: string[] }) => g.tags)).toEqual([['work'], ['work', 'fun']]);
    expect(await guids(`?updatedAt=${Math.floor(Date.now() / 1000) + 100}&affix=append`)).toEqual([]);
    expect(await guids(`?updatedAt=${Math.floor(Date.now() / 1000) + 100}&affix=prepend`)).toHaveLength(4);
  });

  it('with onBehalfOf: hides private groups the user is not in, and filters by hasJoined', async () => {
    expect(await guids('', 'lister')).toEqual(['alpha', 'bravo', 'charlie']);
    expect(await guids('', 'outsider')).toEqual(['alpha', 'bravo']);
    expect(await guids('?hasJoined=true', 'lister')).toEqual(['alpha', 'charlie']);
    expect(await guids('?hasJoined=false', 'lister')).toEqual(['bravo']);
    const joined = await app.call('GET', '/v3/groups?hasJoined=true', { onBehalfOf: 'lister' });
    expect(joined.body.data[0]).toMatchObject({ hasJoined: true, scope: 'admin', joinedAt: expect.any(Number) });
    expectError(await app.call('GET', '/v3/groups/charlie', { onBehalfOf: 'outsider' }), 403, 'ERR_GROUP_NOT_JOINED');
  });

  it.each([
    ['perPage=0', 'perPage'],
    ['perPage=1001', 'perPage'],
    ['page=0', 'page'],
    ['sortBy=size', 'sortBy'],
    ['type=secret', 'type'],
    ['types=public,secret', 'types'],
    ['hasJoined=maybe', 'hasJoined'],
    ['updatedAt=yesterday', 'updatedAt'],
  ])('refuses ?%s', async (query, field) => {
    expectError(await app.call('GET', `/v3/groups?${query}`), 400, 'ERR_BAD_REQUEST', field);
  });

  it('refuses hasJoined without onBehalfOf', async () => {
    expectError(await app.call('GET', '/v3/groups?hasJoined=true'), 400, 'ERR_EMPTY_ON_BEHALF_OF');
  });
});
