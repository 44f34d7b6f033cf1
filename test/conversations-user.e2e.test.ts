import { beforeAll, describe, expect, it } from 'vitest';
import { call, converse, createApp, createUser } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { deleteMessage, until } from './support/conversations.js';
import { commitCount } from './support/mongo.js';

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
}

const unreadOf = (response: ApiResponse) => (response.body as { data?: { unreadMessageCount?: string } }).data?.unreadMessageCount;

// One-on-one conversations through the gateway: get, update, reset, marks, deprecated by-id access, lists.
describe('one-on-one conversation operations', () => {
  let app: TestApp;
  const get = (peer: string, as: string) => app.call('GET', `/v3/users/${peer}/conversation`, { onBehalfOf: as });

  beforeAll(async () => {
    app = await createApp('conversations user');
    await app.call('POST', '/v3/users', { body: { uid: 'ann', name: 'Ann', tags: ['vip'] } });
    for (const uid of ['ben', 'cat', 'dan', 'eve']) await createUser(app, uid, uid.toUpperCase());
    await converse(app, 'ben', 'ann', 'one');
    await converse(app, 'ben', 'ann', 'two');
    await converse(app, 'ann', 'cat', 'hi cat');
    await converse(app, 'dan', 'ann', 'from dan');
  });

  it('counts unread messages per reader, marks read, marks unread after a message, and never goes below zero', async () => {
    const first = await get('ben', 'ann');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ conversationId: 'ann_user_ben', conversationType: 'user', unreadMessageCount: '2' });
    expect((await get('ann', 'ben')).body.data.unreadMessageCount).toBe('0');
    const firstMessageId = Number(first.body.data.lastMessage.id) - 1;

    const read = await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann' });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: { success: true, Message: 'All the messages from the user are marked as read for the requesting user.' } });
    expect(unreadOf(await get('ben', 'ann'))).toBe('0');

    const unread = await app.call('DELETE', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: firstMessageId } });
    expect(unread.status).toBe(200);
    expect(unread.body.data).toEqual({
      success: true,
      message: `The messages after the message id ${firstMessageId} from the user ben are marked as unread for the user ann.`,
    });
    expect(unreadOf(await get('ben', 'ann'))).toBe('1');

    // Read up to a given message (as a string, the form ids have in responses), then everything.
    expect((await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: String(firstMessageId + 1) } })).status).toBe(200);
    expect(unreadOf(await get('ben', 'ann'))).toBe('0');
    const commits = await commitCount('conversations', `conversation-user:${app.appId}:ann:ann_user_ben`);
    expect((await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann' })).status).toBe(200);
    expect(await commitCount('conversations', `conversation-user:${app.appId}:ann:ann_user_ben`)).toBe(commits);

    await converse(app, 'ben', 'ann', 'three');
    expect(unreadOf(await until(() => get('ben', 'ann'), (r) => unreadOf(r) === '1'))).toBe('1');
  });

  it('marks delivered', async () => {
    const delivered = await app.call('POST', '/v3/users/dan/conversation/delivered', { onBehalfOf: 'ann', body: {} });
    expect(delivered.status).toBe(200);
    expect(delivered.body.data).toEqual({ success: true, Message: 'All the messages from the user are marked as delivered for the requesting user.' });
    // Delivered is not read.
    expect(unreadOf(await get('dan', 'ann'))).toBe('1');
  });

  it('refuses bad marks and changes nothing', async () => {
    expectError(await app.call('DELETE', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: 'abc' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: 'abc' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: -3 } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', body: { messageId: 99_999_999 } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/users/ben/conversation/read', { onBehalfOf: 'ann', rawBody: '{"messageId":' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('POST', '/v3/users/eve/conversation/read', { onBehalfOf: 'ann' }), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    expectError(await app.call('POST', '/v3/users/ghost/conversation/read', { onBehalfOf: 'ann' }), 404, 'ERR_UID_NOT_FOUND');
    expectError(await app.call('POST', '/v3/users/ben/conversation/delivered', { onBehalfOf: 'ghost' }), 404, 'ERR_UID_NOT_FOUND');
    expect(await commitCount('conversations', `conversation-user:${app.appId}:ann:ann_user_eve`)).toBe(0);
  });

  it('updates the conversation tags, shows them, and filters the list by them', async () => {
    const updated = await app.call('PUT', '/v3/users/cat/conversation', { onBehalfOf: 'ann', body: { tags: ['work', 'urgent'] } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ conversationId: 'ann_user_cat', tags: ['work', 'urgent'] });
    expect((await get('cat', 'ann')).body.data.tags).toEqual(['work', 'urgent']);
    // Tags are the acting user's own.
    expect((await get('ann', 'cat')).body.data.tags).toEqual([]);

    const tagged = await app.call('GET', '/v3/conversations?tags=urgent,other&withTags=true', { onBehalfOf: 'ann' });
    expect(tagged.status).toBe(200);
    expect(tagged.body.data.map((c: any) => c.conversationId)).toEqual(['ann_user_cat']);
    expect(tagged.body.data[0].tags).toEqual(['work', 'urgent']);
    const plain = await app.call('GET', '/v3/conversations', { onBehalfOf: 'ann' });
    expect(plain.body.data[0]).not.toHaveProperty('tags');

    expectError(await app.call('PUT', '/v3/users/cat/conversation', { onBehalfOf: 'ann', body: { tags: 'work' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('PUT', '/v3/users/cat/conversation', { onBehalfOf: 'ann', body: { tags: Array.from({ length: 26 }, (_, i) => `t${i}`) } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('PUT', '/v3/users/cat/conversation', { onBehalfOf: 'ann', body: { tags: ['x'], pinned: true } }), 400, 'ERR_BAD_REQUEST');
    expect((await get('cat', 'ann')).body.data.tags).toEqual(['work', 'urgent']);
  });

  it('filters the list by unread, type, user tags and search, and shows user tags on request', async () => {
    const unread = await app.call('GET', '/v3/conversations?unread=true', { onBehalfOf: 'ann' });
    expect(unread.body.data.every((c: any) => c.unreadMessageCount !== '0')).toBe(true);
    expect(unread.body.data.map((c: any) => c.conversationId).sort()).toEqual(['ann_user_ben', 'ann_user_dan']);

    expect((await app.call('GET', '/v3/conversations?conversationType=group', { onBehalfOf: 'ann' })).body.data).toEqual([]);
    expect((await app.call('GET', '/v3/conversations?conversationType=user', { onBehalfOf: 'ann' })).body.meta.pagination.total).toBe(3);

    const byUserTag = await app.call('GET', '/v3/conversations?userTags=vip&withUserAndGroupTags=true', { onBehalfOf: 'cat' });
    expect(byUserTag.body.data.map((c: any) => c.conversationWith.uid)).toEqual(['ann']);
    expect(byUserTag.body.data[0].conversationWith.tags).toEqual(['vip']);

    const searched = await app.call('GET', '/v3/conversations?searchKey=DA', { onBehalfOf: 'ann' });
    expect(searched.body.data.map((c: any) => c.conversationWith.uid)).toEqual(['dan']);

    expectError(await app.call('GET', '/v3/conversations?unread=maybe', { onBehalfOf: 'ann' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', '/v3/conversations?conversationType=channel', { onBehalfOf: 'ann' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', '/v3/conversations?perPage=1001', { onBehalfOf: 'ann' }), 400, 'ERR_BAD_REQUEST');
  });

  it('lists every conversation of the app without onBehalfOf, once each', async () => {
    const all = await app.call('GET', '/v3/conversations?perPage=2');
    expect(all.status).toBe(200);
    expect(all.body.meta.pagination).toMatchObject({ total: 3, count: 2, per_page: 2, current_page: 1, total_pages: 2 });
    const page2 = await app.call('GET', '/v3/conversations?perPage=2&page=2');
    const ids = [...all.body.data, ...page2.body.data].map((c: any) => c.conversationId);
    expect(ids.sort()).toEqual(['ann_user_ben', 'ann_user_cat', 'ann_user_dan']);
    expect(all.body.data[0]).toMatchObject({ unreadMessageCount: '0', conversationType: 'user' });
    expect(all.body.data[0].conversationWith.uid).toBe(all.body.data[0].lastMessage.receiver);
  });

  it('shows profile changes of the other user in conversationWith', async () => {
    const updated = await app.call('PUT', '/v3/users/dan', { body: { name: 'Daniel', avatar: 'https://example.com/d.png' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const renamed = await until(() => get('dan', 'ann'), (r) => r.body.data?.conversationWith?.name === 'Daniel');
    expect(renamed.body.data.conversationWith).toMatchObject({ uid: 'dan', name: 'Daniel', avatar: 'https://example.com/d.png', conversationId: 'ann_user_dan' });
  });

  it('reads and deletes by conversation id (deprecated operations)', async () => {
    const byId = await app.call('GET', '/v3/conversations/ann_user_cat', { onBehalfOf: 'cat' });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual((await get('ann', 'cat')).body.data);
    expectError(await app.call('GET', '/v3/conversations/ann_user_cat', { onBehalfOf: 'ben' }), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    expectError(await app.call('GET', '/v3/conversations/nobody_user_none', { onBehalfOf: 'ann' }), 404, 'ERR_CONVERSATION_NOT_FOUND');
    expectError(await app.call('GET', '/v3/conversations/ann_user_cat'), 400, 'ERR_EMPTY_ON_BEHALF_OF');

    const deleted = await app.call('DELETE', '/v3/conversations/ann_user_cat', { onBehalfOf: 'cat' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ success: true, message: 'The conversation ann_user_cat has been deleted successfully for all the users.' });
    expectError(await get('cat', 'ann'), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    expectError(await get('ann', 'cat'), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    // A new message brings it back for both, with only what came after.
    await converse(app, 'cat', 'ann', 'again');
    const back = await get('cat', 'ann');
    expect(back.body.data).toMatchObject({ unreadMessageCount: '1', lastMessage: { data: { text: 'again' } } });
  });

  it('resets a conversation for the acting user only', async () => {
    const reset = await app.call('DELETE', '/v3/users/dan/conversation', { onBehalfOf: 'ann', body: { deleteMessagesPermanently: false } });
    expect(reset.status).toBe(200);
    expect(reset.body.data).toEqual({ success: true, message: 'The conversation ann_user_dan has been deleted successfully for UID ann.' });
    expectError(await get('dan', 'ann'), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    expect((await get('ann', 'dan')).status).toBe(200);
    const listed = await app.call('GET', '/v3/conversations', { onBehalfOf: 'ann' });
    expect(listed.body.data.map((c: any) => c.conversationId)).not.toContain('ann_user_dan');
    expectError(await app.call('DELETE', '/v3/users/dan/conversation', { onBehalfOf: 'ann', body: { deleteMessagesPermanently: 'yes' } }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('DELETE', '/v3/users/dan/conversation', { onBehalfOf: 'ann' }), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
  });

  it('keeps the unread count and last message right when messages are deleted', async () => {
    await converse(app, 'eve', 'ben', 'first');
    const sent = await converse(app, 'eve', 'ben', 'second');
    const id = sent.body.data.id as string;
    expect(unreadOf(await app.call('GET', '/v3/users/eve/conversation', { onBehalfOf: 'ben' }))).toBe('2');
    await deleteMessage(app, id, 'eve', true);
    const after = await until(() => app.call('GET', '/v3/users/eve/conversation', { onBehalfOf: 'ben' }), (r) => unreadOf(r) === '1');
    expect(after.body.data.lastMessage.data.text).toBe('first');
  });

  it('answers a deactivated peer with ERR_UID_NOT_FOUND', async () => {
    const deactivated = await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['eve'] } });
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    await until(() => app.call('GET', '/v3/users/eve/conversation', { onBehalfOf: 'ben' }), (r) => r.status === 404);
    expectError(await app.call('GET', '/v3/users/eve/conversation', { onBehalfOf: 'ben' }), 404, 'ERR_UID_NOT_FOUND');
  });

  it('refuses wrong keys and missing onBehalfOf at the gateway', async () => {
    expectError(await app.call('GET', '/v3/users/ben/conversation', { onBehalfOf: 'ann', apiKey: app.authOnlyKey }), 403, 'AUTH_ERR_NO_ACCESS');
    const other = await createApp('conversations other');
    expectError(await call('GET', '/v3/users/ben/conversation', { appId: app.appId, apiKey: other.fullAccessKey, onBehalfOf: 'ann' }), 401, 'AUTH_ERR_APIKEY_NOT_FOUND');
    expectError(await other.call('GET', '/v3/users/ben/conversation', { onBehalfOf: 'ann' }), 404, 'ERR_UID_NOT_FOUND');
    for (const [method, path] of [
      ['GET', '/v3/users/ben/conversation'],
      ['PUT', '/v3/users/ben/conversation'],
      ['DELETE', '/v3/users/ben/conversation'],
      ['POST', '/v3/users/ben/conversation/read'],
      ['DELETE', '/v3/users/ben/conversation/read'],
      ['POST', '/v3/users/ben/conversation/delivered'],
      ['DELETE', '/v3/conversations/ann_user_ben'],
    ] as const) {
      expectError(await app.call(method, path, method === 'GET' ? {} : { body: {} }), 400, 'ERR_EMPTY_ON_BEHALF_OF');
    }
  });
});
