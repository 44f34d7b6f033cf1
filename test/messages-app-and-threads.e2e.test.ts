import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createGroup, expectError } from './support/groups.js';
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
