import { eventEnvelopeSchema } from '@chat/contracts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { converse, createApp, createUser } from './support/api.js';
import type { TestApp } from './support/api.js';
import { groupHasConsumed, readBack } from './support/kafka.js';
import { commitCount } from './support/mongo.js';

// The seed's §3 transition table and §4.1, row by row, through the gateway on real infrastructure.
describe('DELETE /v3/users/{uid}/conversation/pin', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('unpin');
    for (const uid of ['alice', 'bob', 'carol', 'dave']) await createUser(app, uid);
    await converse(app, 'alice', 'bob');
    await converse(app, 'alice', 'carol');
    await converse(app, 'dave', 'alice');
  });

  const unpin = (uid: string, actingUid: string) =>
    app.call('DELETE', `/v3/users/${uid}/conversation/pin`, { onBehalfOf: actingUid });
  const pin = (uid: string, actingUid: string) =>
    app.call('POST', `/v3/users/${uid}/conversation/pin`, { onBehalfOf: actingUid });
  const get = (uid: string, actingUid: string) =>
    app.call('GET', `/v3/users/${uid}/conversation`, { onBehalfOf: actingUid });

  it('pinned by the user → not pinned: 200, pin fields omitted, and the change is visible at once', async () => {
    const before = Math.floor(Date.now() / 1000);
    const pinned = await pin('bob', 'alice');
    expect(pinned.status).toBe(200);
    expect(pinned.body.data.pinnedBy).toBe('alice');
    expect(pinned.body.data.pinnedAt).toBeGreaterThanOrEqual(before);
    expect(pinned.body.data.pinnedAt).toBeLessThan(before + 60); // seconds, not milliseconds

    const response = await unpin('bob', 'alice');
    expect(response.status).toBe(200);
    const conversation = response.body.data;
    expect(conversation.conversationType).toBe('user');
    expect(conversation.conversationId).toBe('alice_user_bob');
    expect(typeof conversation.unreadMessageCount).toBe('string');
    expect(conversation.conversationWith.uid).toBe('bob');
    expect(conversation.lastMessage.data.text).toBe('hello');
    expect(conversation).not.toHaveProperty('pinnedBy');
    expect(conversation).not.toHaveProperty('pinnedAt');
    expect(Object.keys(response.body)).toEqual(['data']);

    const reread = await get('bob', 'alice');
    expect(reread.body.data).toEqual(conversation);
  });

  it('ConversationUnpinned is on chat.conversations.events in the envelope, and the consumer applying it changes nothing', async () => {
    await pin('carol', 'alice');
    const response = await unpin('carol', 'alice');
    expect(response.status).toBe(200);

    const message = await readBack(
      'chat.conversations.events',
      (v) => v['type'] === 'ConversationUnpinned' && v['appId'] === app.appId && (v['data'] as { conversationWith?: string })?.conversationWith === 'carol',
    );
    const envelope = eventEnvelopeSchema.parse(message.value);
    expect(envelope).toMatchObject({
      type: 'ConversationUnpinned',
      schemaVersion: 1,
      appId: app.appId,
      streamId: `conversation-pins:${app.appId}:alice`,
      actor: { uid: 'alice', scope: 'fullAccess' },
      data: { uid: 'alice', conversationId: 'alice_user_carol', conversationType: 'user', conversationWith: 'carol' },
    });
    expect(envelope.causationId).toBeNull();
    expect(message.headers).toMatchObject({ type: 'ConversationUnpinned', appId: app.appId, schemaVersion: '1' });

    await groupHasConsumed(`conversations.read-models.chat_conversations_${inject('databaseSuffix')}`, 'chat.conversations.events', message.partition, message.offset);
    const after = await get('carol', 'alice');
    expect(after.body.data).toEqual(response.body.data);
  });

  it('not pinned → not pinned: 200 again, idempotent, and no event is written', async () => {
    const first = await unpin('bob', 'alice');
    const commitsBefore = await commitCount('conversations', `conversation-pins:${app.appId}:alice`);
    const second = await unpin('bob', 'alice');
    expect(await commitCount('conversations', `conversation-pins:${app.appId}:alice`)).toBe(commitsBefore);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.data).not.toHaveProperty('pinnedBy');
  });

  it('pinned globally → unchanged: 403 ERR_SYSTEM_PINNED_CONVERSATION, also when the user had pinned it too', async () => {
    expect((await pin('alice', 'dave')).status).toBe(200);
    const replaced = await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [{ uid: 'alice' }] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.pinnedConversations).toMatchObject([{ uid: 'alice', conversationType: 'user' }]);

    const commitsBefore = await commitCount('conversations', `conversation-pins:${app.appId}:dave`);
    const refused = await unpin('alice', 'dave');
    expect(await commitCount('conversations', `conversation-pins:${app.appId}:dave`)).toBe(commitsBefore);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: { code: 'ERR_SYSTEM_PINNED_CONVERSATION', message: expect.any(String) },
    });

    const unchanged = await get('alice', 'dave');
    expect(unchanged.body.data.pinnedBy).toBe('app_system');
    // The global pin shows for every user who has that conversation.
    expect((await get('alice', 'bob')).body.data.pinnedBy).toBe('app_system');

    // Once the app removes its pin, the user's own pin is still there: the 403 changed nothing.
    await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [] } });
    expect((await get('alice', 'dave')).body.data.pinnedBy).toBe('dave');
    expect((await unpin('alice', 'dave')).status).toBe(200);
  });

  it('lists the app-wide pins in their configured order', async () => {
    const body = { pinnedConversations: [{ uid: 'carol' }, { uid: 'bob' }] };
    expect((await app.call('PUT', '/v3/conversations/pinned', { body })).status).toBe(200);
    const listed = await app.call('GET', '/v3/conversations/pinned');
    expect(listed.status).toBe(200);
    expect(listed.body.data.pinnedConversations.map((p: { uid: string }) => p.uid)).toEqual(['carol', 'bob']);

    const conversations = await app.call('GET', '/v3/conversations', { onBehalfOf: 'alice' });
    expect(conversations.status).toBe(200);
    expect(conversations.body.data.map((c: { conversationWith: { uid: string } }) => c.conversationWith.uid)).toEqual([
      'carol',
      'bob',
      'dave',
    ]);
    expect(conversations.body.meta.pagination).toMatchObject({ total: 3, count: 3, current_page: 1 });
    await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [] } });
  });
});
