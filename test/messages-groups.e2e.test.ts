import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import type { TestApp } from './support/api.js';
import { InjectedEvents, closeInjector, groupMessagesWhen, sendMessage, sendWhenAllowed, text } from './support/messages.js';

let app: TestApp;
let events: InjectedEvents;

beforeAll(async () => {
  app = await createApp('messages groups');
  events = new InjectedEvents(app);
  for (const uid of ['owner', 'ann', 'ben', 'cat', 'dan']) await createUser(app, uid, uid.toUpperCase());
});

afterAll(closeInjector);

const actions = (messages: any[]) => messages.filter((m) => m.category === 'action');

describe('sending to a group', () => {
  it('members send; outsiders, the banned and unknown guids are refused', async () => {
    await events.createGroup('club', 'owner', 'The Club');
    await events.join('club', 'ann');
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

    await events.ban('club', 'ann', 'owner');
    const banned = await eventually(() => sendMessage(app, 'ann', text('club', 'x', 'group')), (r) => r.status === 403 && r.body.error.code === 'ERR_BANNED_GROUPMEMBER');
    expect(banned.body.error.code).toBe('ERR_BANNED_GROUPMEMBER');

    const unknown = await sendMessage(app, 'ann', text('nowhere', 'x', 'group'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ERR_GUID_NOT_FOUND');

    await events.deleteGroup('club');
    const gone = await eventually(() => sendMessage(app, 'owner', text('club', 'x', 'group')), (r) => r.status === 404);
    expect(gone.body.error.code).toBe('ERR_GUID_NOT_FOUND');
  });

  it('GET /groups/{guid}/messages: for members, refused to outsiders, unknown guid → 404', async () => {
    await events.createGroup('readers', 'owner');
    await events.join('readers', 'cat');
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
  it('joined, added, scopeChanged, kicked, banned, unbanned, left and updated, with by/for/on entities', async () => {
    await events.createGroup('ops', 'owner', 'Ops');
    await events.join('ops', 'ann');
    await events.add('ops', [{ uid: 'ben', scope: 'participant' }, { uid: 'cat', scope: 'moderator' }], 'owner');
    await events.changeScope('ops', 'ben', 'moderator', 'participant', 'owner');
    await events.kick('ops', 'cat', 'owner');
    await events.ban('ops', 'ben');
    await events.unban('ops', 'ben', 'owner');
    await events.leave('ops', 'ann');
    await events.updateGroup('ops', { name: 'Operations' }, 'owner');

    const messages = await groupMessagesWhen(app, 'ops', (all) => actions(all).length >= 9);
    const found = actions(messages);
    expect(found.map((m) => [m.data.action, m.sender, m.data.entities.on.entity.uid ?? m.data.entities.on.entity.guid])).toEqual([
      ['joined', 'ann', 'ann'],
      ['added', 'owner', 'ben'],
      ['added', 'owner', 'cat'],
      ['scopeChanged', 'owner', 'ben'],
      ['kicked', 'owner', 'cat'],
      ['banned', 'app_system', 'ben'],
      ['unbanned', 'owner', 'ben'],
      ['left', 'ann', 'ann'],
      ['updated', 'owner', 'ops'],
    ]);
    const ids = found.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const joined = found[0];
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
          for: { entityType: 'group', entity: { guid: 'ops', name: 'Ops', owner: 'owner', conversationId: 'group_ops', membersCount: 2 } },
          on: { entityType: 'user', entity: { uid: 'ann', name: 'ANN' } },
        },
      },
    });
    expect(found[3].data).toMatchObject({ scope: 'moderator', oldScope: 'participant', extras: { scope: { new: 'moderator', old: 'participant' } } });
    expect(found[5].data.entities.by.entity.uid).toBe('app_system');
    expect(found[8].data.entities.for.entity.name).toBe('Operations');
  });

  it('are recorded exactly once when Kafka redelivers a group event', async () => {
    await events.createGroup('echo', 'owner');
    const joined = await events.join('echo', 'dan');
    await groupMessagesWhen(app, 'echo', (all) => actions(all).length === 1);
    // The same envelope again, twice, as a redelivery or a replay after a restart would bring it.
    await events.publish('chat.conversations.events', [joined, joined]);
    await events.leave('echo', 'dan');
    const messages = await groupMessagesWhen(app, 'echo', (all) => actions(all).length >= 2);
    expect(actions(messages).map((m) => m.data.action)).toEqual(['joined', 'left']);
  });
});
