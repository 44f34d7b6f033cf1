import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { deleteMessage, editText, sendText } from './support/conversations.js';
import { createGroup, createUsers } from './support/groups.js';
import { authToken, connect, realtimeUrl, refusal } from './support/realtime.js';
import type { Frame, RealtimeClient } from './support/realtime.js';
import { checkResponse } from './support/responseContract.js';

const messageWith = (text: string) => (frame: Frame) => frame.type === 'message' && frame.data?.data?.text === text;

describe('realtime channel (WebSocket and SSE through the gateway)', () => {
  let app: TestApp;
  let other: TestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    [app, other] = await Promise.all([createApp('realtime'), createApp('realtime other')]);
    await createUsers(app, 'alice', 'bob', 'carol', 'dave');
    await createUsers(other, 'bob');
    for (const uid of ['alice', 'bob', 'carol', 'dave']) tokens[uid] = await authToken(app, uid);
    tokens['otherbob'] = await authToken(other, 'bob');
    await createGroup(app, { guid: 'crew', name: 'Crew', type: 'public', owner: 'alice', members: { participants: ['bob'] } });
  });

  it('refuses the upgrade with 401 in CometChat\'s shape: no token, a wrong one, another app\'s', async () => {
    for (const query of [{ appId: app.appId } as Record<string, string>, { appId: app.appId, authToken: 'nope' }, { appId: app.appId, authToken: tokens['otherbob']! }]) {
      const refused = await refusal(query);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    }
    expect((await refusal({ authToken: tokens['bob']! })).body.error.code).toBe('AUTH_ERR_EMPTY_APPID');
  });

  it('pushes a one-on-one message to sender and receiver as REST shows it, to nobody else; ping → pong', async () => {
    const [alice, bob, carol, bobElsewhere] = await Promise.all([
      connect(app.appId, tokens['alice']!),
      connect(app.appId, tokens['bob']!),
      connect(app.appId, tokens['carol']!),
      connect(other.appId, tokens['otherbob']!),
    ]);
    bob.send({ type: 'ping' });
    expect((await bob.next((f) => f.type === 'pong')).type).toBe('pong');
    const id = await sendText(app, 'alice', 'bob', 'user', 'hi bob');
    const atBob = await bob.next(messageWith('hi bob'));
    const atAlice = await alice.next(messageWith('hi bob'));
    const rest = await app.call('GET', `/v3/messages/${id}`, { onBehalfOf: 'bob' });
    expect(atBob.data).toEqual(rest.body.data);
    expect(atAlice.data.id).toBe(id);
    expect(typeof atBob.cursor).toBe('string');
    expect(await carol.receives(messageWith('hi bob'))).toBe(false);
    expect(await bobElsewhere.receives(messageWith('hi bob'), 100)).toBe(false);
    await Promise.all([alice, bob, carol, bobElsewhere].map((c) => c.close()));
  });

  it('pushes group messages (action messages too) to members only', async () => {
    const [bob, carol] = await Promise.all([connect(app.appId, tokens['bob']!), connect(app.appId, tokens['carol']!)]);
    await sendText(app, 'alice', 'crew', 'group', 'hello crew');
    expect((await bob.next(messageWith('hello crew'))).data.receiverType).toBe('group');
    const joined = await app.call('POST', '/v3/groups/crew/members', { onBehalfOf: 'dave', body: { participants: ['dave'] } });
    expect(joined.status).toBe(200);
    const action = await bob.next((f) => f.type === 'message' && f.data.category === 'action' && f.data.data.action === 'joined');
    expect(action.data.data.entities.on.entity.uid).toBe('dave');
    expect(await carol.receives(messageWith('hello crew'))).toBe(false);
    await Promise.all([bob.close(), carol.close()]);
  });

  it('pushes edits, deletions, reactions and receipts with the message', async () => {
    const [alice, bob] = await Promise.all([connect(app.appId, tokens['alice']!), connect(app.appId, tokens['bob']!)]);
    const id = await sendText(app, 'alice', 'bob', 'user', 'to change');
    await bob.next(messageWith('to change'));
    await editText(app, id, 'alice', 'changed');
    const edited = await bob.next((f) => f.type === 'message_edited');
    expect(edited.data).toMatchObject({ id, data: { text: 'changed' }, editedBy: 'alice' });
    expect((await app.call('POST', `/v3/messages/${id}/reactions/${encodeURIComponent('👍')}`, { onBehalfOf: 'bob' })).status).toBe(200);
    const reacted = await alice.next((f) => f.type === 'reaction_added');
    expect(reacted.data).toMatchObject({ messageId: id, reaction: '👍', uid: 'bob', message: { id, data: { reactions: [{ reaction: '👍', count: 1 }] } } });
    // Delivered first: a read implies delivered, so marking delivered after it changes nothing.
    expect((await app.call('POST', '/v3/users/alice/conversation/delivered', { onBehalfOf: 'bob' })).status).toBe(200);
    expect((await alice.next((f) => f.type === 'delivery_receipt')).data).toMatchObject({ uid: 'bob', messageId: id });
    expect((await app.call('POST', '/v3/users/alice/conversation/read', { onBehalfOf: 'bob' })).status).toBe(200);
    const read = await alice.next((f) => f.type === 'read_receipt');
    expect(read.data).toMatchObject({ uid: 'bob', messageId: id, conversationType: 'user' });
    await deleteMessage(app, id, 'alice', false);
    expect((await bob.next((f) => f.type === 'message_deleted')).data).toMatchObject({ id, deletedBy: 'alice' });
    await Promise.all([alice.close(), bob.close()]);
  });

  it('resumes from a cursor: what was missed, in order and once, then live; an unknown cursor gets resync_required', async () => {
    let bob: RealtimeClient = await connect(app.appId, tokens['bob']!);
    await sendText(app, 'alice', 'bob', 'user', 'before');
    const last = await bob.next(messageWith('before'));
    await bob.close();
    for (const text of ['missed 1', 'missed 2', 'missed 3']) await sendText(app, 'alice', 'bob', 'user', text);
    bob = await connect(app.appId, tokens['bob']!, last.cursor);
    for (const text of ['missed 1', 'missed 2', 'missed 3']) await bob.next(messageWith(text));
    await sendText(app, 'alice', 'bob', 'user', 'live');
    await bob.next(messageWith('live'));
    const texts = bob.frames.filter((f) => f.type === 'message').map((f) => f.data.data.text);
    expect(texts).toEqual(['missed 1', 'missed 2', 'missed 3', 'live']);
    await bob.close();
    const lost = await connect(app.appId, tokens['bob']!, 'not-a-cursor');
    expect((await lost.next(() => true)).type).toBe('resync_required');
    await lost.close();
  });

  it('closes a socket with 4401 soon after its token is deleted', async () => {
    const token = await authToken(app, 'carol');
    const carol = await connect(app.appId, token);
    expect((await app.call('DELETE', `/v3/users/carol/auth_tokens/${encodeURIComponent(token)}`)).status).toBe(200);
    const deletedAt = Date.now();
    const closed = await carol.closed;
    expect(closed.code).toBe(4401);
    expect(closed.at - deletedAt).toBeLessThanOrEqual(1_000);
    expect((await refusal({ appId: app.appId, authToken: token })).status).toBe(401);
  });

  it('streams the same frames over SSE, with the cursor as the event id', async () => {
    const controller = new AbortController();
    const url = realtimeUrl({ appId: app.appId, authToken: tokens['bob']! }, '/v3/realtime/events').replace(/^ws/, 'http');
    const response = await fetch(url, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    const sent = sendText(app, 'alice', 'bob', 'user', 'over sse');
    const deadline = Date.now() + 10_000;
    while (!text.includes('over sse') && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    await sent;
    const event = text.split('\n\n').find((block) => block.includes('over sse'))!;
    const id = /^id: (.+)$/m.exec(event)?.[1];
    expect(/^event: (.+)$/m.exec(event)?.[1]).toBe('message');
    const frame = JSON.parse(/^data: (.+)$/m.exec(event)![1]!);
    expect(frame).toMatchObject({ type: 'message', cursor: id, data: { data: { text: 'over sse' } } });
    controller.abort();
    const refused = await fetch(url.replace(tokens['bob']!, 'nope'));
    const body = (await refused.json()) as any;
    checkResponse('GET', '/v3/realtime/events', refused.status, body);
    expect(refused.status).toBe(401);
    expect(body.error.code).toBe('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
  });
});
