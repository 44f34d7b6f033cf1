import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, eventually } from './support/api.js';
import type { ApiResponse, RequestOptions, TestApp } from './support/api.js';
import { readBack } from './support/kafka.js';
import { expectError, expectOk, makeUser } from './support/users.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A client of `app` holding `token`: no API key, the token in the `authtoken` header (ADR 0070). */
function client(app: TestApp, token: string) {
  return (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> =>
    app.call(method, path, { ...options, apiKey: null, headers: { ...options.headers, authtoken: token } });
}

async function issueToken(app: TestApp, uid: string): Promise<string> {
  return expectOk(await app.call('POST', `/v3/users/${uid}/auth_tokens`, { body: {} })).data.authToken as string;
}

describe('client access with an auth token', () => {
  let app: TestApp;
  let other: TestApp;
  let aliceToken: string;
  let alice: ReturnType<typeof client>;

  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('client access'), createApp('client access other')]);
    for (const uid of ['alice', 'bob', 'carol']) await makeUser(app, uid);
    await makeUser(other, 'alice');
    await converse(app, 'bob', 'alice', 'hi alice');
    expectOk(await app.call('POST', '/v3/groups', { body: { guid: 'lounge', name: 'Lounge', type: 'public', owner: 'carol' } }));
    aliceToken = await issueToken(app, 'alice');
    alice = client(app, aliceToken);
  });

  it("sends as the token's user, and the service sees who acted and with which token", async () => {
    const sent = expectOk(await alice('POST', '/v3/messages', { body: { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: 'from the client' } } })).data;
    expect(sent).toMatchObject({ sender: 'alice', receiver: 'bob' });
    const { value } = await readBack('chat.messages.events', (event) => event['appId'] === app.appId && event['type'] === 'MessageSent' && (event['data'] as { id?: unknown }).id === sent.id);
    expect(value['actor']).toEqual({ appId: app.appId, uid: 'alice', keyId: sha256(aliceToken), scope: 'authToken' });
    const seen = await eventually(
      () => app.call('GET', '/v3/users/alice/messages', { onBehalfOf: 'bob' }),
      (r) => r.status === 200 && (r.body.data as { id: unknown }[]).some((m) => m.id === sent.id),
    );
    expect(seen.status).toBe(200);
  });

  it('lists and reads its own conversations and messages, marks them read, and edits only its own messages', async () => {
    const conversations = await eventually(
      () => alice('GET', '/v3/conversations'),
      (r) => r.status === 200 && (r.body.data as { conversationWith?: { uid?: string } }[]).some((c) => c.conversationWith?.uid === 'bob'),
    );
    expect(conversations.status).toBe(200);
    const messages = expectOk(await alice('GET', '/v3/users/bob/messages')).data as { id: string; sender: string }[];
    const fromBob = messages.find((m) => m.sender === 'bob');
    const mine = messages.find((m) => m.sender === 'alice');
    expect(fromBob && mine).toBeTruthy();
    expect(expectOk(await alice('GET', `/v3/messages/${fromBob?.id}`)).data).toMatchObject({ sender: 'bob' });
    expectOk(await alice('POST', '/v3/users/bob/conversation/read'));
    expectOk(await alice('PUT', `/v3/messages/${mine?.id}`, { body: { data: { text: 'edited by alice' } } }));
    // The service's own-message rule holds for a client exactly as for onBehalfOf.
    expectError(await alice('PUT', `/v3/messages/${fromBob?.id}`, { body: { data: { text: 'not yours' } } }), 403, 'ERR_MESSAGE_NOT_A_SENDER');
    expect(expectOk(await app.call('GET', `/v3/messages/${fromBob?.id}`, { onBehalfOf: 'bob' })).data.data.text).toBe('hi alice');
  });

  it('reacts, joins and leaves a group, and keeps its own friends and blocked users', async () => {
    const sent = expectOk(await app.call('POST', '/v3/messages', { onBehalfOf: 'bob', body: { receiver: 'alice', receiverType: 'user', type: 'text', data: { text: 'react' } } })).data;
    expectOk(await alice('POST', `/v3/messages/${sent.id}/reactions/👍`));
    expectOk(await alice('POST', '/v3/groups/lounge/members', { body: { participants: ['alice'] } }));
    expectOk(await alice('DELETE', '/v3/groups/lounge/members/alice'));
    expectOk(await alice('POST', '/v3/users/alice/friends', { body: { accepted: ['bob'] } }));
    expect((expectOk(await alice('GET', '/v3/users/alice/friends')).data as { uid: string }[]).map((u) => u.uid)).toEqual(['bob']);
    expectOk(await alice('POST', '/v3/users/alice/blockedusers', { body: { blockedUids: ['carol'] } }));
    expectOk(await alice('DELETE', '/v3/users/alice/blockedusers', { body: { blockedUids: ['carol'] } }));
  });

  it("refuses the app's operations and another user's, and changes nothing", async () => {
    expectError(await alice('POST', '/v3/users', { body: { uid: 'mallory', name: 'Mallory' } }), 403, 'AUTH_ERR_NO_ACCESS');
    expectError(await app.call('GET', '/v3/users/mallory'), 404, 'ERR_UID_NOT_FOUND');
    expectError(await alice('GET', '/v3/apikeys'), 403, 'AUTH_ERR_NO_ACCESS');
    expectError(await alice('DELETE', '/v3/users/bob', { body: { permanent: true } }), 403, 'AUTH_ERR_NO_ACCESS');
    expectOk(await app.call('GET', '/v3/users/bob'));
    expectError(await alice('POST', '/v3/users/bob/friends', { body: { accepted: ['carol'] } }), 403, 'AUTH_ERR_NO_ACCESS');
    // Friendship is mutual: bob has alice (added by her above), never carol.
    expect((expectOk(await app.call('GET', '/v3/users/bob/friends')).data as { uid: string }[]).map((u) => u.uid)).toEqual(['alice']);

    const before = expectOk(await app.call('GET', '/v3/users/carol/messages', { onBehalfOf: 'bob' })).data as unknown[];
    const spoof = { onBehalfOf: 'bob', body: { receiver: 'carol', receiverType: 'user', type: 'text', data: { text: 'as bob' } } };
    expectError(await alice('POST', '/v3/messages', spoof), 403, 'AUTH_ERR_NO_ACCESS', 'onBehalfOf');
    await sleep(300);
    expect(expectOk(await app.call('GET', '/v3/users/carol/messages', { onBehalfOf: 'bob' })).data).toHaveLength(before.length);
    // Its own uid as onBehalfOf is no other user.
    expectOk(await alice('GET', '/v3/conversations', { onBehalfOf: 'alice' }));
  });

  it("refuses an unknown token, and a token of another app's user, even of the same uid", async () => {
    expectError(await client(app, 'alice_1700000000' + 'f'.repeat(40))('GET', '/v3/conversations'), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    const foreign = await issueToken(other, 'alice');
    expectError(await client(app, foreign)('GET', '/v3/conversations'), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await client(other, aliceToken)('GET', '/v3/conversations'), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expectOk(await client(other, foreign)('GET', '/v3/conversations'));
  });

  it('refuses a revoked token within one second', async () => {
    const token = await issueToken(app, 'bob');
    const bob = client(app, token);
    expectOk(await bob('GET', '/v3/conversations'));
    expectOk(await app.call('DELETE', `/v3/users/bob/auth_tokens/${token}`));
    await sleep(1_000);
    expectError(await bob('GET', '/v3/conversations'), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    expectError(await bob('POST', '/v3/messages', { body: { receiver: 'alice', receiverType: 'user', type: 'text', data: { text: 'revoked' } } }), 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
  });

  it('lets an API key win when a request carries both', async () => {
    const both = await app.call('POST', '/v3/users', { headers: { authtoken: aliceToken }, body: { uid: 'by-key', name: 'By key' } });
    expect(expectOk(both).data.uid).toBe('by-key');
  });
});
