import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { readBack } from './support/kafka.js';
import { done, groupMessagesWhen, redeliver, sendMessage, sendWhenAllowed, text } from './support/messages.js';

let app: TestApp;

beforeAll(async () => {
  app = await createApp('messages groups');
  for (const uid of ['owner', 'ann', 'ben', 'cat', 'dan']) await createUser(app, uid, uid.toUpperCase());
});

const actions = (messages: any[]) => messages.filter((m) => m.category === 'action');

/** A public group made through the groups API, owned by `owner` (onBehalfOf: the owner is added as admin). */
function createGroup(guid: string, owner: string, name = guid, members?: Record<string, string[]>): Promise<ApiResponse> {
  return done(app.call('POST', '/v3/groups', { onBehalfOf: owner, body: { guid, name, type: 'public', ...(members ? { members } : {}) } }));
}

/** `uid` adds themselves to a public group: `GroupMemberJoined`. */
function join(guid: string, uid: string): Promise<ApiResponse> {
  return done(app.call('POST', `/v3/groups/${guid}/members`, { onBehalfOf: uid, body: { participants: [uid] } }));
}

describe('sending to a group', () => {
  it('members send; outsiders, the banned and unknown guids are refused', async () => {
    await createGroup('club', 'owner', 'The Club');
    await join('club', 'ann');
    const sent = await sendWhenAllowed(app, 'ann', text('club', 'hi club', 'group'));
    expect(sent.body.data).toMatchObject({
      conversationId: 'group_club',
      receiver: 'club',
      receiverType: 'group',
      sender: 'ann',
      data: {
        text: 'hi club',
        entities: {
          sender: { entityType: 'user', entity: { uid: 'ann' } },
          receiver: { entityType: 'group', entity: { guid: 'club', name: 'The Club', type: 'public', owner: 'owner', membersCount: 2 } },
        },
      },
    });

    const outsider = await sendMessage(app, 'ben', text('club', 'let me in', 'group'));
    expect(outsider.status).toBe(403);
    expect(outsider.body.error.code).toBe('ERR_GROUP_NOT_JOINED');

    await done(app.call('POST', '/v3/groups/club/bannedusers/ann', { onBehalfOf: 'owner' }));
    const banned = await eventually(() => sendMessage(app, 'ann', text('club', 'x', 'group')), (r) => r.status === 403 && r.body.error.code === 'ERR_BANNED_GROUPMEMBER');
    expect(banned.body.error.code).toBe('ERR_BANNED_GROUPMEMBER');

    const unknown = await sendMessage(app, 'ann', text('nowhere', 'x', 'group'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ERR_GUID_NOT_FOUND');

    await done(app.call('DELETE', '/v3/groups/club'));
    const gone = await eventually(() => sendMessage(app, 'owner', text('club', 'x', 'group')), (r) => r.status === 404);
    expect(gone.body.error.code).toBe('ERR_GUID_NOT_FOUND');
  });

  it('GET /groups/{guid}/messages: for members, refused to outsiders, unknown guid → 404', async () => {
    // Created with cat as a member: `GroupMembersAdded` at creation makes cat a member like a join.
    await createGroup('readers', 'owner', 'readers', { participants: ['cat'] });
    await sendWhenAllowed(app, 'cat', text('readers', 'r1', 'group'));
    const list = await app.call('GET', '/v3/groups/readers/messages', { onBehalfOf: 'cat' });
    expect(list.status).toBe(200);
    expect(list.body.data.some((m: any) => m.data.text === 'r1')).toBe(true);
    expect(list.body.meta.current).toMatchObject({ limit: 100, count: list.body.data.length });
    const outsider = await app.call('GET', '/v3/groups/readers/messages', { onBehalfOf: 'dan' });
    expect(outsider.status).toBe(403);
    expect(outsider.body.error.code).toBe('ERR_GROUP_NOT_JOINED');
    const unknown = await app.call('GET', '/v3/groups/nope/messages');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ERR_GUID_NOT_FOUND');
  });
});

describe('action messages for group events', () => {
  it('added at creation, joined, added, scopeChanged, kicked, banned, unbanned, left and updated, with by/for/on entities', async () => {
    // Creation adds the owner (as admin, no action message) and dan (one `added` message).
    await createGroup('ops', 'owner', 'Ops', { participants: ['dan'] });
    await join('ops', 'ann');
    await done(app.call('POST', '/v3/groups/ops/members', { onBehalfOf: 'owner', body: { participants: ['ben'], moderators: ['cat'] } }));
    await done(app.call('PUT', '/v3/groups/ops/members/ben', { onBehalfOf: 'owner', body: { scope: 'moderator' } }));
    await done(app.call('DELETE', '/v3/groups/ops/members/cat', { onBehalfOf: 'owner' }));
    await done(app.call('POST', '/v3/groups/ops/bannedusers/ben'));
    await done(app.call('DELETE', '/v3/groups/ops/bannedusers/ben', { onBehalfOf: 'owner' }));
    await done(app.call('DELETE', '/v3/groups/ops/members/ann', { onBehalfOf: 'ann' }));
    await done(app.call('PUT', '/v3/groups/ops', { onBehalfOf: 'owner', body: { name: 'Operations' } }));

    const messages = await groupMessagesWhen(app, 'ops', (all) => actions(all).length >= 10);
    const found = actions(messages);
    // One `GroupMembersAdded` lists admins, then moderators, then participants: cat before ben.
    expect(found.map((m) => [m.data.action, m.sender, m.data.entities.on.entity.uid ?? m.data.entities.on.entity.guid])).toEqual([
      ['added', 'owner', 'dan'],
      ['joined', 'ann', 'ann'],
      ['added', 'owner', 'cat'],
      ['added', 'owner', 'ben'],
      ['scopeChanged', 'owner', 'ben'],
      ['kicked', 'owner', 'cat'],
      ['banned', 'app_system', 'ben'],
      ['unbanned', 'owner', 'ben'],
      ['left', 'ann', 'ann'],
      ['updated', 'owner', 'ops'],
    ]);
    const ids = found.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const joined = found[1];
    expect(joined).toMatchObject({
      conversationId: 'group_ops',
      receiver: 'ops',
      receiverType: 'group',
      category: 'action',
      type: 'groupMember',
      data: {
        action: 'joined',
        entities: {
          by: { entityType: 'user', entity: { uid: 'ann', name: 'ANN', status: 'offline' } },
          for: { entityType: 'group', entity: { guid: 'ops', name: 'Ops', owner: 'owner', conversationId: 'group_ops', membersCount: 3 } },
          on: { entityType: 'user', entity: { uid: 'ann', name: 'ANN' } },
        },
      },
    });
    expect(found[4].data).toMatchObject({ scope: 'moderator', oldScope: 'participant', extras: { scope: { new: 'moderator', old: 'participant' } } });
    expect(found[6].data.entities.by.entity.uid).toBe('app_system');
    expect(found[9].data.entities.for.entity.name).toBe('Operations');
  });

  it('are recorded exactly once when Kafka redelivers a group event', async () => {
    await createGroup('echo', 'owner');
    await join('echo', 'dan');
    await groupMessagesWhen(app, 'echo', (all) => actions(all).length === 1);
    // The service's own GroupMemberJoined again, twice, as a redelivery or a replay after a restart brings it.
    const joined = await readBack(
      'chat.conversations.events',
      (v) => v['appId'] === app.appId && v['type'] === 'GroupMemberJoined' && (v['data'] as any).guid === 'echo' && (v['data'] as any).uid === 'dan',
    );
    await redeliver('chat.conversations.events', joined, 2);
    // Leaving is published after the copies on the same partition, so its message comes after theirs.
    await done(app.call('DELETE', '/v3/groups/echo/members/dan', { onBehalfOf: 'dan' }));
    const messages = await groupMessagesWhen(app, 'echo', (all) => actions(all).length >= 2);
    expect(actions(messages).map((m) => m.data.action)).toEqual(['joined', 'left']);
  });
});
