import { beforeAll, describe, expect, it } from 'vitest';
import { call, converse, createApp, createUser, eventually, managementHeaders } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { commitCount } from './support/mongo.js';

function expectError(response: ApiResponse, status: number, code: string, mentions?: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (mentions) expect(response.body.error.message).toContain(mentions);
}

describe('users: bad input changes nothing', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('bad users');
  });

  it.each([
    ['malformed JSON', { rawBody: '{"uid": "x",' }, 400, 'ERR_BAD_REQUEST', 'JSON'],
    ['a body that is not an object', { rawBody: '"just a string"' }, 400, 'ERR_BAD_REQUEST', undefined],
    ['no uid', { body: { name: 'N' } }, 400, 'ERR_BAD_REQUEST', 'uid'],
    ['no name', { body: { uid: 'u1' } }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['a uid with spaces', { body: { uid: 'has space', name: 'N' } }, 400, 'ERR_BAD_REQUEST', 'uid'],
    ['a 101-character uid', { body: { uid: 'a'.repeat(101), name: 'N' } }, 400, 'ERR_BAD_REQUEST', 'uid'],
    ['a number as name', { body: { uid: 'u2', name: 42 } }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['a 101-character name', { body: { uid: 'u3', name: 'n'.repeat(101) } }, 400, 'ERR_BAD_REQUEST', 'name'],
    ['26 tags', { body: { uid: 'u4', name: 'N', tags: Array.from({ length: 26 }, (_, i) => `t${i}`) } }, 400, 'ERR_BAD_REQUEST', 'tags'],
    ['metadata over 5 KB', { body: { uid: 'u5', name: 'N', metadata: { blob: 'x'.repeat(5200) } } }, 400, 'ERR_BAD_REQUEST', 'metadata'],
    ['an avatar that is not a URL', { body: { uid: 'u6', name: 'N', avatar: 'not a url' } }, 400, 'ERR_BAD_REQUEST', 'avatar'],
    ['a body over 10 KB', { body: { uid: 'u7', name: 'N', statusMessage: 'x'.repeat(11_000) } }, 413, 'ERR_PAYLOAD_TOO_LARGE', undefined],
  ])('refuses %s', async (_label, options, status, code, mentions) => {
    expectError(await app.call('POST', '/v3/users', options), status, code, mentions);
    const listed = await app.call('GET', '/v3/users');
    expect(listed.body.data).toEqual([]);
  });

  it('creates a user with CometChat fields, lower-cases the uid, and refuses a duplicate', async () => {
    const created = await app.call('POST', '/v3/users', {
      body: { uid: 'Mixed-Case_1', name: 'Mixed', metadata: { 'a.b': 1, $c: [[1]] }, tags: ['t'], withAuthToken: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ uid: 'mixed-case_1', name: 'Mixed', role: 'default', status: 'offline', tags: ['t'] });
    expect(created.body.data.metadata).toEqual({ 'a.b': 1, $c: [[1]] });
    expect(created.body.data.authToken).toMatch(/^mixed-case_1_\d+[0-9a-f]{40}$/);
    expectError(await app.call('POST', '/v3/users', { body: { uid: 'mixed-case_1', name: 'Again' } }), 409, 'ERR_UID_ALREADY_EXISTS');
    expect((await app.call('GET', '/v3/users/mixed-case_1')).body.data.name).toBe('Mixed');
  });

  it('creates exactly one user when the same uid is created concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => app.call('POST', '/v3/users', { body: { uid: 'racer', name: `R${i}` } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await commitCount('users', `user:${app.appId}:racer`)).toBe(1);
  });

  it('answers unknown users with ERR_UID_NOT_FOUND', async () => {
    expectError(await app.call('GET', '/v3/users/nobody'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('GET', '/v3/users/not%20valid'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/nobody/auth_tokens', { body: {} }), 404, 'ERR_UID_NOT_FOUND');
  });

  it('creates auth tokens for a user, also with an authOnly key', async () => {
    await createUser(app, 'token-holder');
    const token = await app.call('POST', '/v3/users/token-holder/auth_tokens', { apiKey: app.authOnlyKey, body: {} });
    expect(token.status).toBe(200);
    expect(token.body.data).toMatchObject({ uid: 'token-holder', authToken: expect.stringMatching(/^token-holder_/) });
  });

  it('refuses bad paging values', async () => {
    expectError(await app.call('GET', '/v3/users?perPage=0'), 400, 'ERR_BAD_REQUEST', 'perPage');
    expectError(await app.call('GET', '/v3/users?page=abc'), 400, 'ERR_BAD_REQUEST', 'page');
  });
});

describe('messages: bad input changes nothing', () => {
  let app: TestApp;
  let other: TestApp;
  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('bad messages'), createApp('other tenant')]);
    await createUser(app, 'sender');
    await createUser(app, 'receiver');
    await createUser(other, 'stranger');
  });

  const send = (body: unknown, onBehalfOf = 'sender') => app.call('POST', '/v3/messages', { body, onBehalfOf });
  const text = { receiver: 'receiver', receiverType: 'user', type: 'text', data: { text: 'hi' } };

  it.each([
    ['no receiver', { ...text, receiver: undefined }, 400, 'ERR_EMPTY_RECEIVER'],
    ['a bad receiverType', { ...text, receiverType: 'planet' }, 400, 'ERR_INVALID_RECEIVER_TYPE'],
    ['an empty text', { ...text, data: { text: '' } }, 400, 'ERR_EMPTY_MESSAGE_TEXT'],
    ['a text that is a number', { ...text, data: { text: 7 } }, 400, 'ERR_INVALID_MESSAGE_TEXT'],
    ['data that is not an object', { ...text, data: 'hi' }, 400, 'ERR_INVALID_MESSAGE_DATA'],
    ['an unsupported type', { ...text, type: 'hologram' }, 400, 'ERR_INVALID_MESSAGE_TYPE'],
    ['an unknown receiver', { ...text, receiver: 'ghost' }, 404, 'ERR_UID_NOT_FOUND'],
    ["another app's user", { ...text, receiver: 'stranger' }, 404, 'ERR_UID_NOT_FOUND'],
    ['a message to oneself', { ...text, receiver: 'sender' }, 400, 'ERR_MESSAGE_TO_SELF'],
    ['a text over 64 KB', { ...text, data: { text: 'x'.repeat(70_000) } }, 413, 'ERR_PAYLOAD_TOO_LARGE'],
  ])('refuses %s', async (_label, body, status, code) => {
    expectError(await send(body), status, code);
    expect(await commitCount('messages', `messages:${app.appId}:receiver_user_sender`)).toBe(0);
  });

  it('refuses malformed JSON and an unknown sender', async () => {
    expectError(await app.call('POST', '/v3/messages', { rawBody: '{', onBehalfOf: 'sender' }), 400, 'ERR_BAD_REQUEST');
    expectError(await send(text, 'ghost'), 404, 'ERR_UID_NOT_FOUND');
  });

  it('sends a text message in CometChat shape with increasing ids', async () => {
    const first = await send({ ...text, data: { text: 'one', metadata: { k: 'v' } }, tags: ['x'] });
    const second = await send({ ...text, data: { text: 'two' } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      conversationId: 'receiver_user_sender',
      sender: 'sender',
      receiver: 'receiver',
      receiverType: 'user',
      category: 'message',
      type: 'text',
      data: {
        text: 'one',
        metadata: { k: 'v' },
        entities: {
          sender: { entityType: 'user', entity: { uid: 'sender' } },
          receiver: { entityType: 'user', entity: { uid: 'receiver', conversationId: 'receiver_user_sender' } },
        },
      },
      tags: ['x'],
    });
    expect(Number(second.body.data.id)).toBeGreaterThan(Number(first.body.data.id));
    expect(first.body.data.sentAt).toBe(first.body.data.updatedAt);
  });
});

describe('conversations: bad input changes nothing', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('bad conversations');
    for (const uid of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'loner']) await createUser(app, uid);
    for (const peer of ['u2', 'u3', 'u4', 'u5', 'u6', 'u7']) await converse(app, 'u1', peer);
  });

  it('answers unknown users and never-messaged conversations with 404', async () => {
    expectError(await app.call('DELETE', '/v3/users/ghost/conversation/pin', { onBehalfOf: 'u1' }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('DELETE', '/v3/users/u2/conversation/pin', { onBehalfOf: 'ghost' }), 404, 'ERR_UID_NOT_FOUND');
    expectError(
      await app.call('DELETE', '/v3/users/loner/conversation/pin', { onBehalfOf: 'u1' }),
      404,
      'ERR_CONVERSATION_NOT_ACCESSIBLE',
    );
    expectError(await app.call('GET', '/v3/users/loner/conversation', { onBehalfOf: 'u1' }), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
  });

  it('pins at most five conversations per user', async () => {
    for (const peer of ['u2', 'u3', 'u4', 'u5', 'u6']) {
      expect((await app.call('POST', `/v3/users/${peer}/conversation/pin`, { onBehalfOf: 'u1' })).status).toBe(200);
    }
    // Pinning again is idempotent and does not count twice.
    expect((await app.call('POST', '/v3/users/u2/conversation/pin', { onBehalfOf: 'u1' })).status).toBe(200);
    expectError(
      await app.call('POST', '/v3/users/u7/conversation/pin', { onBehalfOf: 'u1' }),
      400,
      'ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED',
    );
    const list = await app.call('GET', '/v3/conversations', { onBehalfOf: 'u1' });
    expect(list.body.data.map((c: { conversationWith: { uid: string } }) => c.conversationWith.uid)).toEqual([
      'u6', 'u5', 'u4', 'u3', 'u2', 'u7',
    ]);
    expect(list.body.data.slice(0, 5).every((c: { pinnedBy?: string }) => c.pinnedBy === 'u1')).toBe(true);
    const page2 = await app.call('GET', '/v3/conversations?perPage=4&page=2', { onBehalfOf: 'u1' });
    expect(page2.body.data.map((c: { conversationWith: { uid: string } }) => c.conversationWith.uid)).toEqual(['u2', 'u7']);
    expect(page2.body.meta.pagination).toMatchObject({ total: 6, count: 2, per_page: 4, current_page: 2, total_pages: 2 });
  });

  it.each([
    ['malformed JSON', { rawBody: '{"pinnedConversations": [' }, 400, 'ERR_BAD_REQUEST'],
    ['a missing list', { body: {} }, 400, 'ERR_BAD_REQUEST'],
    ['items that are strings', { body: { pinnedConversations: ['u2'] } }, 400, 'ERR_BAD_REQUEST'],
    ['an item with both uid and guid', { body: { pinnedConversations: [{ uid: 'u2', guid: 'g' }] } }, 400, 'ERR_BAD_REQUEST'],
    ['six pins', { body: { pinnedConversations: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'].map((uid) => ({ uid })) } }, 400, 'ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED'],
    ['a duplicate', { body: { pinnedConversations: [{ uid: 'u2' }, { uid: 'u2' }] } }, 400, 'ERR_BAD_REQUEST'],
    ['an unknown uid', { body: { pinnedConversations: [{ uid: 'ghost' }] } }, 404, 'ERR_UID_NOT_FOUND'],
    ['an unknown guid', { body: { pinnedConversations: [{ guid: 'no-group' }] } }, 404, 'ERR_GUID_NOT_FOUND'],
  ])('PUT /conversations/pinned refuses %s', async (_label, options, status, code) => {
    expectError(await app.call('PUT', '/v3/conversations/pinned', options), status, code);
    expect((await app.call('GET', '/v3/conversations/pinned')).body.data.pinnedConversations).toEqual([]);
  });

  it('counts unread messages per user as a string', async () => {
    await converse(app, 'u3', 'u1', 'second');
    const forU1 = await eventually(
      () => app.call('GET', '/v3/users/u3/conversation', { onBehalfOf: 'u1' }),
      (r) => r.body.data?.unreadMessageCount === '1',
    );
    expect(forU1.body.data.unreadMessageCount).toBe('1');
    const forU3 = await app.call('GET', '/v3/users/u1/conversation', { onBehalfOf: 'u3' });
    expect(forU3.body.data.unreadMessageCount).toBe('1');
  });

  it('keeps management bad input out too', async () => {
    expectError(await call('POST', '/apps', { headers: managementHeaders(), body: { region: 'us' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await call('POST', '/apps', { headers: managementHeaders(), rawBody: '{' }), 400, 'ERR_BAD_REQUEST');
    expectError(await call('GET', '/apps/nosuchapp', { headers: managementHeaders() }), 404, 'ERR_APP_NOT_FOUND');
  });
});

describe('paths: bad percent-encoding is the client’s mistake on every service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createApp('bad paths');
    await createUser(app, 'pathuser');
  });

  it.each([
    ['users', 'GET', '/v3/users/%E0%A4%A'],
    ['auth tokens', 'GET', '/v3/users/pathuser/auth_tokens/%E0%A4%A'],
    ['roles', 'GET', '/v3/roles/%E0%A4%A'],
    ['groups', 'GET', '/v3/groups/%E0%A4%A'],
    ['group members', 'DELETE', '/v3/groups/%E0%A4%A/members/pathuser'],
    ['conversations', 'GET', '/v3/users/%E0%A4%A/conversation'],
    ['messages', 'GET', '/v3/messages/%E0%A4%A'],
    ['message lists', 'GET', '/v3/groups/%E0%A4%A/messages'],
  ])('%s: %s %s answers 400, not 500', async (_area, method, path) => {
    const response = await app.call(method, path, { onBehalfOf: 'pathuser' });
    expectError(response, 400, 'ERR_BAD_REQUEST');
  });
});
