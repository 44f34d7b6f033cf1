import { beforeAll, describe, expect, it } from 'vitest';
import { converse, createApp, createUser } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import {
  banMember,
  deleteMessage,
  editText,
  joinGroup,
  removeMember,
  sendText,
  until,
  untilAction,
} from './support/conversations.js';
import { createGroup } from './support/groups.js';
import { commitCount } from './support/mongo.js';

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code).toBe(code);
}

const unreadOf = (response: ApiResponse) => (response.body as { data?: { unreadMessageCount?: string } }).data?.unreadMessageCount;

// Group conversations through the gateway, fed by the real groups API and messages service. Every
// membership change also becomes an action message (messages service): the group conversation's last
// message, never an unread one.
describe('group conversation operations', () => {
  let app: TestApp;
  const get = (guid: string, as: string) => app.call('GET', `/v3/groups/${guid}/conversation`, { onBehalfOf: as });
  const toTeam = (from: string, text: string) => sendText(app, from, 'team', 'group', text);

  beforeAll(async () => {
    app = await createApp('conversations group');
    for (const uid of ['owner', 'pat', 'quin', 'rae', 'sol', 'tom']) await createUser(app, uid);
    await createGroup(app, { guid: 'team', name: 'The Team', type: 'public', owner: 'owner', members: { participants: ['pat'] } });
  });

  it('shows a member the group conversation from joining, in CometChat shape', async () => {
    // Adding pat at creation is an `added` action message: the last message, not an unread one.
    await untilAction(app, 'team', 'pat', 'added', 'pat');
    const conversation = await get('team', 'pat');
    expect(conversation.body.data).toMatchObject({
      conversationId: 'group_team',
      conversationType: 'group',
      unreadMessageCount: '0',
      conversationWith: {
        guid: 'team',
        name: 'The Team',
        type: 'public',
        owner: 'owner',
        scope: 'participant',
        membersCount: 2,
        hasJoined: true,
        conversationId: 'group_team',
      },
      lastMessage: { category: 'action', receiverType: 'group', receiver: 'team', data: { action: 'added' } },
    });
    expect(conversation.body.data.conversationWith.joinedAt).toBeGreaterThan(1_600_000_000);
    const owners = await untilAction(app, 'team', 'owner', 'added', 'pat');
    expect(owners).toBe(conversation.body.data.lastMessage.id);
    expect(unreadOf(await get('team', 'owner'))).toBe('0');
  });

  it('counts a member’s unread messages only while they were a member: join, leave, rejoin', async () => {
    await toTeam('owner', 'before quin');
    await joinGroup(app, 'team', 'quin');
    await untilAction(app, 'team', 'quin', 'joined', 'quin');
    const during = await toTeam('owner', 'while quin is in');
    await toTeam('pat', 'also while quin is in');
    await until(() => get('team', 'quin'), (r) => unreadOf(r) === '2');
    await removeMember(app, 'team', 'quin');
    await until(() => get('team', 'quin'), (r) => r.body.data?.conversationWith?.hasJoined === false);
    // The `left` notice is past quin's membership: wait for it in pat's view before sending on.
    const left = await untilAction(app, 'team', 'pat', 'left', 'quin');
    const after = await toTeam('owner', 'after quin left');

    await until(() => get('team', 'pat'), (r) => r.body.data?.lastMessage?.id === after);
    expect(unreadOf(await get('team', 'pat'))).toBe('3');
    expect(unreadOf(await get('team', 'owner'))).toBe('1');
    // quin keeps the conversation as it was when they left.
    const quin = await get('team', 'quin');
    expect(quin.body.data).toMatchObject({ unreadMessageCount: '2', lastMessage: { data: { text: 'also while quin is in' } } });
    expect(quin.body.data.conversationWith).not.toHaveProperty('scope');

    const read = await app.call('POST', '/v3/groups/team/conversation/read', { onBehalfOf: 'pat' });
    expect(read.body).toEqual({ data: { success: true, message: 'All the messages in the group are marked as read for the requesting user.' } });
    expect(unreadOf(await get('team', 'pat'))).toBe('0');
    const unread = await app.call('DELETE', '/v3/groups/team/conversation/read', { onBehalfOf: 'pat', body: { messageId: Number(during) } });
    expect(unread.body.data).toEqual({
      success: true,
      message: `The messages after the message id ${during} in the group team are marked as unread for the user pat.`,
    });
    // Neither pat's own message nor the `left` notice counts: only the owner's last one.
    expect(unreadOf(await get('team', 'pat'))).toBe('1');
    const delivered = await app.call('POST', '/v3/groups/team/conversation/delivered', { onBehalfOf: 'pat', body: { messageId: Number(after) } });
    expect(delivered.body.data).toEqual({ success: true, message: 'All the messages in the group are marked as delivered for the requesting user.' });

    // Rejoining opens a second window: what was sent while quin was away never counts for them.
    await joinGroup(app, 'team', 'quin');
    await untilAction(app, 'team', 'quin', 'joined', 'quin', left);
    const back = await toTeam('owner', 'welcome back');
    const rejoined = await until(() => get('team', 'quin'), (r) => r.body.data?.lastMessage?.id === back);
    expect(rejoined.body.data).toMatchObject({ unreadMessageCount: '3', conversationWith: { hasJoined: true, scope: 'participant' } });
  });

  it('follows kicks and bans, edits and deletes', async () => {
    await joinGroup(app, 'team', 'rae');
    await untilAction(app, 'team', 'rae', 'joined', 'rae');
    const edited = await toTeam('owner', 'typo');
    await until(() => get('team', 'rae'), (r) => unreadOf(r) === '1');
    await editText(app, edited, 'owner', 'fixed');
    await until(() => get('team', 'rae'), (r) => r.body.data?.lastMessage?.data?.text === 'fixed');
    await deleteMessage(app, edited, 'owner', false);
    const softDeleted = await until(() => get('team', 'rae'), (r) => unreadOf(r) === '0');
    expect(softDeleted.body.data.lastMessage).toMatchObject({ id: edited, deletedAt: expect.any(Number) });

    await removeMember(app, 'team', 'rae', 'owner');
    await untilAction(app, 'team', 'owner', 'kicked', 'rae');
    const afterKick = await toTeam('owner', 'after the kick');
    await until(() => get('team', 'owner'), (r) => r.body.data?.lastMessage?.id === afterKick);
    expect(unreadOf(await get('team', 'rae'))).toBe('0');

    await joinGroup(app, 'team', 'sol');
    await untilAction(app, 'team', 'sol', 'joined', 'sol');
    const whileSol = await toTeam('owner', 'while sol is in');
    await until(() => get('team', 'sol'), (r) => r.body.data?.lastMessage?.id === whileSol);
    await banMember(app, 'team', 'sol', 'owner');
    await untilAction(app, 'team', 'owner', 'banned', 'sol');
    const last = await toTeam('owner', 'after the ban');
    await until(() => get('team', 'owner'), (r) => r.body.data?.lastMessage?.id === last);
    // sol keeps what came while they were in, nothing after the ban.
    expect((await get('team', 'sol')).body.data).toMatchObject({ unreadMessageCount: '1', lastMessage: { id: whileSol } });
  });

  it('updates tags, pins and unpins a group conversation for one user, and resets it', async () => {
    const updated = await app.call('PUT', '/v3/groups/team/conversation', { onBehalfOf: 'pat', body: { tags: ['ops'] } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.tags).toEqual(['ops']);

    const pinned = await app.call('POST', '/v3/groups/team/conversation/pin', { onBehalfOf: 'pat' });
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({ conversationId: 'group_team', pinnedBy: 'pat' });
    expect((await get('team', 'owner')).body.data).not.toHaveProperty('pinnedBy');
    const unpinned = await app.call('DELETE', '/v3/groups/team/conversation/pin', { onBehalfOf: 'pat' });
    expect(unpinned.status).toBe(200);
    expect(unpinned.body.data).not.toHaveProperty('pinnedBy');
    // Unpinning again is idempotent.
    expect((await app.call('DELETE', '/v3/groups/team/conversation/pin', { onBehalfOf: 'pat' })).status).toBe(200);

    const reset = await app.call('DELETE', '/v3/groups/team/conversation', { onBehalfOf: 'pat' });
    expect(reset.body.data).toEqual({ success: true, message: 'The conversation group_team has been deleted successfully for UID pat.' });
    expectError(await get('team', 'pat'), 404, 'ERR_CONVERSATION_NOT_ACCESSIBLE');
    const next = await toTeam('owner', 'after the reset');
    const back = await until(() => get('team', 'pat'), (r) => r.body.data?.lastMessage?.id === next);
    expect(unreadOf(back)).toBe('1');
  });

  it('pins app-wide with a guid and orders the list: app pins, own pins, then by activity', async () => {
    await createGroup(app, { guid: 'second', name: 'second', type: 'public', owner: 'owner', members: { participants: ['pat'] } });
    await untilAction(app, 'second', 'owner', 'added', 'pat');
    await converse(app, 'pat', 'owner', 'direct');
    const replaced = await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [{ guid: 'second' }, { uid: 'pat' }] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.pinnedConversations).toMatchObject([
      { guid: 'second', conversationType: 'group' },
      { uid: 'pat', conversationType: 'user' },
    ]);
    expect((await app.call('GET', '/v3/conversations/pinned')).body.data.pinnedConversations.map((p: any) => p.guid ?? p.uid)).toEqual(['second', 'pat']);

    expectError(await app.call('POST', '/v3/groups/second/conversation/pin', { onBehalfOf: 'owner' }), 403, 'ERR_SYSTEM_PINNED_CONVERSATION');
    expectError(await app.call('DELETE', '/v3/groups/second/conversation/pin', { onBehalfOf: 'owner' }), 403, 'ERR_SYSTEM_PINNED_CONVERSATION');
    expect((await app.call('POST', '/v3/groups/team/conversation/pin', { onBehalfOf: 'owner' })).status).toBe(200);

    const list = await app.call('GET', '/v3/conversations', { onBehalfOf: 'owner' });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: any) => c.conversationId)).toEqual(['group_second', 'owner_user_pat', 'group_team']);
    expect(list.body.data.map((c: any) => c.pinnedBy)).toEqual(['app_system', 'app_system', 'owner']);
    expect((await app.call('GET', '/v3/conversations?conversationType=group', { onBehalfOf: 'owner' })).body.data.map((c: any) => c.conversationId)).toEqual([
      'group_second',
      'group_team',
    ]);

    expect((await app.call('PUT', '/v3/groups/second', { body: { tags: ['blue'] } })).status).toBe(200);
    const byGroupTag = await until(
      () => app.call('GET', '/v3/conversations?groupTags=blue&withUserAndGroupTags=true', { onBehalfOf: 'owner' }),
      (r) => r.body.data?.length === 1,
    );
    expect(byGroupTag.body.data[0].conversationWith).toMatchObject({ guid: 'second', tags: ['blue'] });
    await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [] } });
  });

  it('refuses non-members, unknown and deleted groups, and changes nothing', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/read'],
      ['DELETE', '/read'],
      ['POST', '/delivered'],
      ['POST', '/pin'],
      ['DELETE', '/pin'],
    ] as const) {
      const body = method === 'GET' ? {} : { body: suffix === '' && method === 'PUT' ? { tags: ['x'] } : { messageId: 1 } };
      expectError(await app.call(method, `/v3/groups/team/conversation${suffix}`, { onBehalfOf: 'tom', ...body }), 403, 'ERR_GROUP_NOT_JOINED');
      expectError(await app.call(method, `/v3/groups/nosuch/conversation${suffix}`, { onBehalfOf: 'tom', ...body }), 404, 'ERR_GUID_NOT_FOUND');
    }
    expect(await commitCount('conversations', `conversation-user:${app.appId}:tom:group_team`)).toBe(0);
    expect(await commitCount('conversations', `conversation-pins:${app.appId}:tom`)).toBe(0);
    expectError(await get('bad guid!', 'owner'), 404, 'ERR_GUID_NOT_FOUND');
    expectError(await app.call('PUT', '/v3/conversations/pinned', { body: { pinnedConversations: [{ guid: 'nosuch' }] } }), 404, 'ERR_GUID_NOT_FOUND');
    // A former member (banned) still reads what they saw.
    expect((await get('team', 'sol')).status).toBe(200);

    expect((await app.call('DELETE', '/v3/groups/second')).status).toBe(200);
    await until(() => get('second', 'owner'), (r) => r.status === 404);
    expectError(await get('second', 'owner'), 404, 'ERR_GUID_NOT_FOUND');
    const list = await app.call('GET', '/v3/conversations', { onBehalfOf: 'owner' });
    expect(list.body.data.map((c: any) => c.conversationId)).not.toContain('group_second');
  });
});
