import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';

// One story across the four services, every step through the gateway on real Kafka, FerretDB and
// Redis: the users service's and the groups' events reach the messages service (authorisation, action
// messages) and the conversation read model (unread counts, conversationWith) within the propagation budget.
describe('events across services', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('cross-service');
    for (const uid of ['alice', 'bob', 'carol', 'dave']) await createUser(app, uid);
  });

  const sendToGroup = (sender: string, guid: string, text: string): Promise<ApiResponse> =>
    app.call('POST', '/v3/messages', {
      onBehalfOf: sender,
      body: { receiver: guid, receiverType: 'group', category: 'message', type: 'text', data: { text } },
    });
  const sendToUser = (sender: string, receiver: string, text: string): Promise<ApiResponse> =>
    app.call('POST', '/v3/messages', {
      onBehalfOf: sender,
      body: { receiver, receiverType: 'user', category: 'message', type: 'text', data: { text } },
    });
  const expectRefused = (response: ApiResponse, status: number, code: string): void => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.body.error.code).toBe(code);
  };
  const groupConversation = (guid: string, uid: string): Promise<ApiResponse> =>
    app.call('GET', `/v3/groups/${guid}/conversation`, { onBehalfOf: uid });

  it('a group made through the API authorises sends, counts unread messages and shows action messages', async () => {
    const created = await app.call('POST', '/v3/groups', {
      body: { guid: 'team', name: 'Team', type: 'public', owner: 'alice', members: { participants: ['bob'] } },
    });
    expect(created.status).toBe(200);
    expect(created.body.data.membersCount).toBe(2);

    // The messages service learns the membership from the group's events.
    const sent = await eventually(() => sendToGroup('bob', 'team', 'hi team'), (r) => r.status === 200);
    expect(sent.status).toBe(200);
    const messageId = sent.body.data.id as string;

    const outsider = await sendToGroup('carol', 'team', 'let me in');
    expectRefused(outsider, 403, 'ERR_GROUP_NOT_JOINED');

    const alices = await eventually(
      () => groupConversation('team', 'alice'),
      (r) => r.status === 200 && r.body.data.lastMessage?.id === messageId,
    );
    expect(alices.body.data.unreadMessageCount).toBe('1');
    expect(alices.body.data.conversationWith.guid).toBe('team');
    const bobs = await groupConversation('team', 'bob');
    expect(bobs.body.data.unreadMessageCount).toBe('0');

    const read = await app.call('POST', '/v3/groups/team/conversation/read', { onBehalfOf: 'alice', body: { messageId: Number(messageId) } });
    expect(read.status).toBe(200);
    const afterRead = await groupConversation('team', 'alice');
    expect(afterRead.body.data.unreadMessageCount).toBe('0');

    // Adding carol is an action message in the group, `by` the acting user, `on` carol, `for` the group.
    const added = await app.call('POST', '/v3/groups/team/members', { onBehalfOf: 'alice', body: { participants: ['carol'] } });
    expect(added.status).toBe(200);
    // Creating the group with bob already made an `added` notice (by the app); wait for carol's.
    const withAction = await eventually(
      () => groupConversation('team', 'alice'),
      (r) => r.status === 200 && r.body.data.lastMessage?.category === 'action' && r.body.data.lastMessage.data.entities?.on?.entity?.uid === 'carol',
    );
    const action = withAction.body.data.lastMessage;
    expect(action.data.action).toBe('added');
    expect(action.data.entities.by.entity.uid).toBe('alice');
    expect(action.data.entities.on.entity.uid).toBe('carol');
    expect(action.data.entities.for.entity.guid).toBe('team');
    expect(Number(action.id)).toBeGreaterThan(Number(messageId));

    const carolSends = await eventually(() => sendToGroup('carol', 'team', 'thanks'), (r) => r.status === 200);
    expect(carolSends.status).toBe(200);

    // Kicked: carol's next send is refused once the messages service has seen the kick.
    const kicked = await app.call('DELETE', '/v3/groups/team/members/carol', { onBehalfOf: 'alice' });
    expect(kicked.status).toBe(200);
    const refused = await eventually(() => sendToGroup('carol', 'team', 'still here?'), (r) => r.status !== 200);
    expectRefused(refused, 403, 'ERR_GROUP_NOT_JOINED');
  });

  it('a block made through the users API refuses the blocked user’s messages until unblocked', async () => {
    await converse(app, 'alice', 'bob');
    const blocked = await app.call('POST', '/v3/users/bob/blockedusers', { body: { blockedUids: ['alice'] } });
    expect(blocked.status).toBe(200);
    const refused = await eventually(() => sendToUser('alice', 'bob', 'are you there?'), (r) => r.status !== 200);
    expectRefused(refused, 403, 'ERR_BLOCKED_SENDER');

    const unblocked = await app.call('DELETE', '/v3/users/bob/blockedusers', { body: { blockedUids: ['alice'] } });
    expect(unblocked.status).toBe(200);
    const allowed = await eventually(() => sendToUser('alice', 'bob', 'hello again'), (r) => r.status === 200);
    expect(allowed.status).toBe(200);
  });

  it('a profile update reaches the other user’s conversation, and a deactivated user can no longer send', async () => {
    await converse(app, 'dave', 'alice');
    const renamed = await app.call('PUT', '/v3/users/dave', { body: { name: 'David' } });
    expect(renamed.status).toBe(200);
    const seen = await eventually(
      () => app.call('GET', '/v3/users/dave/conversation', { onBehalfOf: 'alice' }),
      (r) => r.status === 200 && r.body.data.conversationWith.name === 'David',
    );
    expect(seen.body.data.conversationWith.name).toBe('David');

    const deactivated = await app.call('DELETE', '/v3/users', { body: { uidsToDeactivate: ['dave'] } });
    expect(deactivated.status).toBe(200);
    const refused = await eventually(() => sendToUser('dave', 'alice', 'bye'), (r) => r.status !== 200);
    expectRefused(refused, 404, 'ERR_UID_NOT_FOUND');

    const reactivated = await app.call('PUT', '/v3/users', { body: { uidsToActivate: ['dave'] } });
    expect(reactivated.status).toBe(200);
    const allowed = await eventually(() => sendToUser('dave', 'alice', 'back'), (r) => r.status === 200);
    expect(allowed.status).toBe(200);
  });
});
