import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, expectError } from './support/groups.js';
import { sendMessage, sendWhenAllowed, text } from './support/messages.js';

describe('group scope permissions are enforced (SBAC)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('sbac');
    for (const uid of ['owner', 'pat']) await createUser(app, uid);
    await createGroup(app, { guid: 'club', name: 'Club', type: 'public' }, 'owner');
    expect((await app.call('POST', '/v3/groups/club/members', { body: { participants: ['pat'] } })).status).toBe(200);
    await sendWhenAllowed(app, 'pat', text('club', 'before', 'group'));
  });

  it('a participant denied sendMessage cannot send to the group; the admin still can; allowing it again works', async () => {
    const set = await app.call('PUT', '/v3/groups/club/scopes/participant/permissions', { body: { permissions: { sendMessage: 'deny' } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const refused = await eventually(() => sendMessage(app, 'pat', text('club', 'denied?', 'group')), (r) => r.status !== 200);
    expectError(refused, 403, 'ERR_PERMISSION_DENIED', 'sendMessage');
    expect((await sendMessage(app, 'owner', text('club', 'admins may', 'group'))).status).toBe(200);
    await app.call('DELETE', '/v3/groups/club/scopes/participant/permissions/sendMessage');
    await sendWhenAllowed(app, 'pat', text('club', 'allowed again', 'group'));
  });

  it('addReaction and editMessage denials bind the participant, not the app', async () => {
    const own = await sendWhenAllowed(app, 'pat', text('club', 'mine', 'group'));
    const id = String(own.body.data.id);
    await app.call('PUT', '/v3/groups/club/scopes/participant/permissions', { body: { permissions: { addReaction: 'deny', editMessage: 'deny' } } });
    const react = await eventually(() => app.call('POST', `/v3/messages/${id}/reactions/👍`, { onBehalfOf: 'pat' }), (r) => r.status !== 200);
    expectError(react, 403, 'ERR_PERMISSION_DENIED', 'addReaction');
    expectError(await app.call('PUT', `/v3/messages/${id}`, { onBehalfOf: 'pat', body: { data: { text: 'x' } } }), 403, 'ERR_PERMISSION_DENIED');
    expect((await app.call('PUT', `/v3/messages/${id}`, { body: { data: { text: 'by the app' } } })).status).toBe(200);
  });
});

describe('role permissions and restricted features are enforced (RBAC)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('rbac');
    expect((await app.call('POST', '/v3/roles', { body: { role: 'muted', name: 'Muted' } })).status).toBe(200);
    await createUser(app, 'ann');
    await createUser(app, 'ben');
    expect((await app.call('PUT', '/v3/users/ben', { body: { role: 'muted' } })).status).toBe(200);
    await converse(app, 'ann', 'ben');
  });

  it('a role denied sendMessage cannot send, within a second of the change; others still can', async () => {
    const started = Date.now();
    expect((await app.call('PUT', '/v3/roles/muted/permissions', { body: { permissions: { sendMessage: 'deny' } } })).status).toBe(200);
    const refused = await eventually(() => sendMessage(app, 'ben', text('ann', 'hi')), (r) => r.status === 403, 3_000);
    expect(Date.now() - started).toBeLessThan(2_500); // 1 s cache bound plus the users projection's lag
    expectError(refused, 403, 'ERR_PERMISSION_DENIED', 'sendMessage');
    expect((await sendMessage(app, 'ann', text('ben', 'still fine'))).status).toBe(200);
    await app.call('DELETE', '/v3/roles/muted/permissions/sendMessage');
    await eventually(() => sendMessage(app, 'ben', text('ann', 'back')), (r) => r.status === 200, 3_000);
  });

  it('a restricted feature refuses its operations for the role', async () => {
    await app.call('POST', '/v3/roles/muted/restrictedfeatures', { body: { featuresToRestrict: ['u.listConversations'] } });
    const refused = await eventually(() => app.call('GET', '/v3/conversations', { onBehalfOf: 'ben' }), (r) => r.status === 403, 3_000);
    expectError(refused, 403, 'ERR_PERMISSION_DENIED', 'u.listConversations');
    expect((await app.call('GET', '/v3/conversations', { onBehalfOf: 'ann' })).status).toBe(200);
  });

  it('value-level permissions: message types, custom types, receiver types and group types outside the role’s lists are refused', async () => {
    const limits = {
      'sendMessage.allowedMessageTypes': ['text'],
      'sendMessage.allowedReceiverTypes': ['user'],
      'sendMessage.allowedCustomTypes': ['poll'],
      'createGroup.allowedGroupTypes': ['private'],
    };
    expect((await app.call('PUT', '/v3/roles/muted/permissions', { body: { permissions: limits } })).status).toBe(200);
    const image = (to: string) => text(to, '', 'user', { type: 'image', data: { url: 'https://example.com/a.png' } });
    const refused = await eventually(() => sendMessage(app, 'ben', image('ann')), (r) => r.status === 403, 3_000);
    expectError(refused, 403, 'ERR_PERMISSION_DENIED', 'sendMessage.allowedMessageTypes');
    // What the lists allow still goes through; the same request from a user of another role too.
    expect((await sendMessage(app, 'ben', text('ann', 'text is allowed'))).status).toBe(200);
    expect((await sendMessage(app, 'ann', image('ben'))).status).toBe(200);
    const custom = (type: string) => ({ receiver: 'ann', receiverType: 'user', category: 'custom', type, data: { customData: { q: 1 } } });
    expect((await sendMessage(app, 'ben', custom('poll'))).status).toBe(200);
    expectError(await sendMessage(app, 'ben', custom('survey')), 403, 'ERR_PERMISSION_DENIED', 'sendMessage.allowedCustomTypes');
    await createGroup(app, { guid: 'limited', name: 'Limited', type: 'public', owner: 'ann', members: { participants: ['ben'] } });
    expectError(await sendMessage(app, 'ben', text('limited', 'to a group', 'group')), 403, 'ERR_PERMISSION_DENIED', 'sendMessage.allowedReceiverTypes');
    const group = (guid: string, type: string) => app.call('POST', '/v3/groups', { onBehalfOf: 'ben', body: { guid, name: guid, type } });
    expectError(await group('ben-public', 'public'), 403, 'ERR_PERMISSION_DENIED', 'createGroup.allowedGroupTypes');
    expect((await group('ben-private', 'private')).status).toBe(200);
    // A refused request changed nothing: no such group.
    expect((await app.call('GET', '/v3/groups/ben-public')).status).toBe(404);
    for (const permission of Object.keys(limits)) await app.call('DELETE', `/v3/roles/muted/permissions/${permission}`);
    await eventually(() => sendMessage(app, 'ben', image('ann')), (r) => r.status === 200, 3_000);
  });
});

describe('Idempotency-Key and muid', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('idempotency');
    await createUser(app, 'ida');
    await createUser(app, 'ivo');
    await converse(app, 'ida', 'ivo');
  });

  it('ten concurrent identical requests give one message and ten identical answers', async () => {
    const body = text('ivo', 'exactly once');
    const headers = { 'Idempotency-Key': 'retry-me-1' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => app.call('POST', '/v3/messages', { onBehalfOf: 'ida', body, headers })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const ids = new Set(answers.map((a) => JSON.stringify(a.body)));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    const id = String(answers[0]!.body.data.id);
    const listed = await app.call('GET', `/v3/users/ivo/messages?searchKey=${encodeURIComponent('exactly once')}`, { onBehalfOf: 'ida' });
    expect(listed.body.data.map((m: { id: string }) => String(m.id))).toEqual([id]);
  });

  it('the same key with another body is refused (422); a malformed key is a 400', async () => {
    const headers = { 'Idempotency-Key': 'retry-me-2' };
    expect((await app.call('POST', '/v3/messages', { onBehalfOf: 'ida', body: text('ivo', 'one'), headers })).status).toBe(200);
    expectError(await app.call('POST', '/v3/messages', { onBehalfOf: 'ida', body: text('ivo', 'two'), headers }), 422, 'ERR_IDEMPOTENCY_KEY_REUSED');
    expectError(await app.call('POST', '/v3/messages', { onBehalfOf: 'ida', body: text('ivo', 'x'), headers: { 'Idempotency-Key': 'bad key' } }), 400, 'ERR_INVALID_IDEMPOTENCY_KEY');
  });

  it('a repeated muid from the same sender returns the stored message', async () => {
    const first = await sendMessage(app, 'ida', text('ivo', 'muid once', 'user', { muid: 'client-77' }));
    const again = await sendMessage(app, 'ida', text('ivo', 'muid once', 'user', { muid: 'client-77' }));
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await sendMessage(app, 'ivo', text('ida', 'same muid, other sender', 'user', { muid: 'client-77' }));
    expect(other.body.data.id).not.toBe(first.body.data.id);
  });
});

describe('rate limits', () => {
  it('every authenticated answer carries the limit headers, and Remaining counts down', async () => {
    const app = await createApp('rate headers');
    const first = await app.call('GET', '/v3/users');
    const second = await app.call('GET', '/v3/users');
    expect(first.headers.get('x-rate-limit')).toBe('20000');
    const remaining = Number(first.headers.get('x-rate-limit-remaining'));
    expect(Number(second.headers.get('x-rate-limit-remaining'))).toBe(remaining - 1);
    expect(Number(first.headers.get('x-rate-limit-reset'))).toBeGreaterThan(Date.now() / 1000);
    // core operations have their own budget
    expect((await app.call('POST', '/v3/users', { body: { uid: 'rl', name: 'rl' } })).headers.get('x-rate-limit')).toBe('10000');
  });
});

describe('the contract, to the letter', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('contract');
    await createUser(app, 'cat');
    await createUser(app, 'dog');
    await converse(app, 'cat', 'dog', 'one');
    await converse(app, 'dog', 'cat', 'two');
  });

  it('deprecated operations name their successors', async () => {
    const listed = await app.call('GET', '/v3/users/dog/conversation', { onBehalfOf: 'cat' });
    const byId = await app.call('GET', `/v3/conversations/${listed.body.data.conversationId as string}`, { onBehalfOf: 'cat' });
    expect(byId.status).toBe(200);
    expect(byId.headers.get('deprecation')).toBe('true');
    expect(byId.headers.get('link')).toContain('</v3/users/{uid}/conversation>; rel="successor-version"');
    expect(listed.headers.get('deprecation')).toBeNull();
  });

  it('an empty query value means "not set"', async () => {
    for (const query of ['searchKey=', 'tags=', 'conversationType=']) {
      const response = await app.call('GET', `/v3/conversations?${query}`, { onBehalfOf: 'cat' });
      expect(response.status, `${query}: ${JSON.stringify(response.body)}`).toBe(200);
      expect(response.body.data).toHaveLength(1);
    }
    expect((await app.call('GET', '/v3/groups?affix=&searchKey=')).status).toBe(200);
    expect((await app.call('GET', '/v3/users?searchKey=&tags=')).status).toBe(200);
  });

  it('DELETE …/conversation/read without messageId marks the last message unread', async () => {
    await app.call('POST', '/v3/users/dog/conversation/read', { onBehalfOf: 'cat' });
    const unread = await app.call('DELETE', '/v3/users/dog/conversation/read', { onBehalfOf: 'cat' });
    expect(unread.status, JSON.stringify(unread.body)).toBe(200);
    const conversation = await eventually(
      () => app.call('GET', '/v3/users/dog/conversation', { onBehalfOf: 'cat' }),
      (r) => r.body.data?.unreadMessageCount === '1',
    );
    expect(conversation.body.data.unreadMessageCount).toBe('1');
  });

  it('guids are case-insensitive on conversation routes as everywhere', async () => {
    await createGroup(app, { guid: 'pack', name: 'Pack', type: 'public' }, 'cat');
    await sendWhenAllowed(app, 'cat', text('pack', 'woof', 'group'));
    const upper = await eventually(() => app.call('GET', '/v3/groups/PACK/conversation', { onBehalfOf: 'cat' }), (r) => r.status === 200);
    expect(upper.body.data.conversationId).toBe('group_pack');
  });

  it('a listed (masked) API key can be deleted as listed, and so can a listed auth token', async () => {
    const created = await app.call('POST', '/v3/apikeys', { body: { name: 'temp', scope: 'authOnly' } });
    const listed = await app.call('GET', '/v3/apikeys');
    const masked = (listed.body.data as { apiKey: string; name: string }[]).find((k) => k.name === 'temp')!.apiKey;
    expect(masked).toContain('…');
    expect(masked).not.toBe(created.body.data.apiKey);
    expect((await app.call('DELETE', `/v3/apikeys/${encodeURIComponent(masked)}`)).status).toBe(200);
    expectError(await app.call('GET', `/v3/apikeys/${encodeURIComponent(masked)}`), 404, 'ERR_APIKEY_NOT_FOUND');

    expect((await app.call('POST', '/v3/users/cat/auth_tokens')).status).toBe(200);
    const tokens = await app.call('GET', '/v3/users/cat/auth_tokens');
    const shown = tokens.body.data[0].authToken as string;
    expect((await app.call('DELETE', `/v3/users/cat/auth_tokens/${encodeURIComponent(shown)}`)).status).toBe(200);
    expect((await app.call('GET', '/v3/users/cat/auth_tokens')).body.data).toHaveLength(tokens.body.data.length - 1);
  });

  it('an empty list is one empty page on every service', async () => {
    const empty = { total: 0, count: 0, total_pages: 1 };
    expect((await app.call('GET', '/v3/users?searchKey=nobody-at-all')).body.meta.pagination).toMatchObject(empty);
    expect((await app.call('GET', '/v3/groups?searchKey=nothing-here')).body.meta.pagination).toMatchObject(empty);
    expect((await app.call('GET', '/v3/apikeys?searchKey=nothing-here')).body.meta.pagination).toMatchObject(empty);
    expect((await app.call('GET', '/v3/users/cat/messages?searchKey=nothing-here', { onBehalfOf: 'dog' })).body.meta.pagination).toMatchObject(empty);
  });
});
