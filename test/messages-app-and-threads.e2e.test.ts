import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, expectError } from './support/groups.js';
import { readBack } from './support/kafka.js';
import { done, sendMessage, text } from './support/messages.js';

let app: TestApp;

beforeAll(async () => {
  app = await createApp('app sends and threads');
  for (const uid of ['ann', 'ben', 'cat']) await createUser(app, uid);
  await createGroup(app, { guid: 'crew', name: 'Crew', type: 'private', owner: 'ann' });
});

describe('POST /messages without onBehalfOf: the app sends as app_system', () => {
  it('to a user and to a group it is not a member of', async () => {
    const toUser = await eventually(() => app.call('POST', '/v3/messages', { body: text('ben', 'maintenance tonight') }), (r) => r.status === 200);
    expect(toUser.body.data).toMatchObject({
      sender: 'app_system',
      receiver: 'ben',
      conversationId: 'app_system_user_ben',
      data: { text: 'maintenance tonight', entities: { sender: { entity: { uid: 'app_system' } }, receiver: { entity: { uid: 'ben' } } } },
    });
    const toGroup = await eventually(() => app.call('POST', '/v3/messages', { body: text('crew', 'welcome', 'group') }), (r) => r.status === 200);
    expect(toGroup.body.data).toMatchObject({ sender: 'app_system', receiver: 'crew', receiverType: 'group' });
    expectError(await app.call('POST', '/v3/messages', { body: text('nobody', 'x') }), 404, 'ERR_UID_NOT_FOUND');
  });
});

describe('POST /messages/{id}/thread names no receiver', () => {
  it('the reply goes to the parent’s conversation, from either participant', async () => {
    const parent = (await done(sendMessage(app, 'ann', text('ben', 'question')))).body.data;
    const bare = { category: 'message', type: 'text', data: { text: 'answer' } };
    const fromBen = await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'ben', body: bare });
    expect(fromBen.status, JSON.stringify(fromBen.body)).toBe(200);
    expect(fromBen.body.data).toMatchObject({ parentId: parent.id, sender: 'ben', receiver: 'ann', conversationId: 'ann_user_ben' });
    const fromAnn = await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'ann', body: bare });
    expect(fromAnn.body.data).toMatchObject({ parentId: parent.id, sender: 'ann', receiver: 'ben' });
    // A receiver given anyway must be the parent's conversation; an outsider cannot reply.
    expectError(await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'ann', body: { ...bare, receiver: 'cat', receiverType: 'user' } }), 400, 'ERR_WRONG_MESSAGE_THREAD');
    expect((await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'cat', body: bare })).status).toBe(400);
    expectError(await app.call('POST', '/v3/messages/99999999/thread', { onBehalfOf: 'ann', body: bare }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
  });

  it('in a group, the reply goes to the group', async () => {
    const parent = (await eventually(() => sendMessage(app, 'ann', text('crew', 'plan', 'group')), (r) => r.status === 200)).body.data;
    const reply = await app.call('POST', `/v3/messages/${parent.id}/thread`, { onBehalfOf: 'ann', body: { data: { text: 'detail' } } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toMatchObject({ parentId: parent.id, receiver: 'crew', receiverType: 'group' });
  });
});

describe('POST and DELETE /messages/{id}/pin', () => {
  it('a participant pins for everyone; re-pinning re-stamps; unpinning clears; events reach Kafka', async () => {
    const m = (await done(sendMessage(app, 'ann', text('ben', 'remember this')))).body.data;
    const pinned = await app.call('POST', `/v3/messages/${m.id}/pin`, { onBehalfOf: 'ben' });
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    expect(pinned.body.data).toMatchObject({ id: m.id, pinnedBy: 'ben', pinnedAt: expect.any(Number) });
    const seenByAnn = await app.call('GET', `/v3/messages/${m.id}`, { onBehalfOf: 'ann' });
    expect(seenByAnn.body.data).toMatchObject({ pinnedBy: 'ben' });
    const byApp = await app.call('POST', `/v3/messages/${m.id}/pin`);
    expect(byApp.body.data.pinnedBy).toBe('app_system');
    const unpinned = await app.call('DELETE', `/v3/messages/${m.id}/pin`, { onBehalfOf: 'ann' });
    expect(unpinned.status).toBe(200);
    expect(unpinned.body.data).not.toHaveProperty('pinnedAt');
    expect((await app.call('DELETE', `/v3/messages/${m.id}/pin`, { onBehalfOf: 'ann' })).status).toBe(200);
    await readBack('chat.messages.events', (v) => v['type'] === 'MessagePinned' && v['appId'] === app.appId && (v['data'] as { pinnedBy: string }).pinnedBy === 'ben');
    await readBack('chat.messages.events', (v) => v['type'] === 'MessageUnpinned' && v['appId'] === app.appId);
  });

  it('refuses outsiders, plain group members, unknown ids; a group admin may pin', async () => {
    const m = (await done(sendMessage(app, 'ann', text('ben', 'private')))).body.data;
    expectError(await app.call('POST', `/v3/messages/${m.id}/pin`, { onBehalfOf: 'cat' }), 403, 'ERR_MESSAGE_NO_ACCESS');
    expectError(await app.call('POST', '/v3/messages/99999999/pin', { onBehalfOf: 'ann' }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    await done(app.call('POST', '/v3/groups/crew/members', { body: { participants: ['ben'] } }));
    const g = (await eventually(() => sendMessage(app, 'ben', text('crew', 'hello crew', 'group')), (r) => r.status === 200)).body.data;
    expectError(await app.call('POST', `/v3/messages/${g.id}/pin`, { onBehalfOf: 'ben' }), 403, 'ERR_PERMISSION_DENIED');
    const byOwner = await app.call('POST', `/v3/messages/${g.id}/pin`, { onBehalfOf: 'ann' });
    expect(byOwner.status, JSON.stringify(byOwner.body)).toBe(200);
    expect(byOwner.body.data.pinnedBy).toBe('ann');
  });

  it('holds at most 100 pinned messages per conversation, pins by users and the app together', async () => {
    const ids: string[] = [];
    for (let i = 0; i <= 100; i += 1) ids.push((await done(sendMessage(app, 'ben', text('cat', `note ${i}`)))).body.data.id as string);
    for (const [i, id] of ids.slice(0, 100).entries()) {
      const pinned = await app.call('POST', `/v3/messages/${id}/pin`, i % 2 === 0 ? { onBehalfOf: 'cat' } : {});
      expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    }
    const last = ids[100]!;
    expectError(await app.call('POST', `/v3/messages/${last}/pin`, { onBehalfOf: 'ben' }), 400, 'ERR_PINNED_MESSAGES_LIMIT_EXCEEDED');
    expect((await app.call('GET', `/v3/messages/${last}`, { onBehalfOf: 'ben' })).body.data).not.toHaveProperty('pinnedAt');
    // Re-pinning one already pinned is not a new pin; after an unpin there is room again.
    expect((await app.call('POST', `/v3/messages/${ids[0]!}/pin`, { onBehalfOf: 'ben' })).status).toBe(200);
    expect((await app.call('DELETE', `/v3/messages/${ids[1]!}/pin`, { onBehalfOf: 'ben' })).status).toBe(200);
    expect((await app.call('POST', `/v3/messages/${last}/pin`, { onBehalfOf: 'ben' })).status).toBe(200);
    // Another conversation has its own hundred.
    const elsewhere = (await done(sendMessage(app, 'ann', text('cat', 'other conversation')))).body.data.id as string;
    expect((await app.call('POST', `/v3/messages/${elsewhere}/pin`, { onBehalfOf: 'cat' })).status).toBe(200);
  });
});
