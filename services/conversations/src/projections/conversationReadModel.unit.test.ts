import type { EventEnvelope, GlobalPin } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ConversationReadModel } from './conversationReadModel.js';
import type { ConversationFilter } from './conversationReadModel.js';
import { T0, messageSent as message, pinChanged as pinEvent, testEnvelope } from './testEvents.js';
import { memoryConversationStores } from './memoryStores.js';

function freshModel(options: { inboxSize?: number } = {}) {
  const { stores, memory } = memoryConversationStores();
  return { model: new ConversationReadModel(stores, options), memory };
}

async function applyOneByOne(events: readonly EventEnvelope[], options: { inboxSize?: number } = {}) {
  const built = freshModel(options);
  for (const event of events) await built.model.apply([event]);
  return built;
}

const view = async (model: ConversationReadModel, owner: string, conversationId: string) => (await model.facts('app1', owner, conversationId))?.conversation;

const snapshot = (memory: ReturnType<typeof freshModel>['memory']) =>
  Object.fromEntries(Object.entries(memory).map(([name, store]) => [name, store.snapshot<object>()]));

/** The same documents, whatever order the stores first saw them in. */
const sortedSnapshot = (memory: ReturnType<typeof freshModel>['memory']) =>
  Object.fromEntries(Object.entries(snapshot(memory)).map(([name, docs]) => [name, [...docs].sort(([a], [b]) => (a < b ? -1 : 1))]));

const history = [
  message(1, '1', 'a', 'b'),
  pinEvent('ConversationPinned', 1),
  message(2, '2', 'b', 'a'),
  message(3, '3', 'b', 'a'),
  pinEvent('ConversationUnpinned', 2),
  pinEvent('ConversationPinned', 3),
];

describe('one-on-one conversations', () => {
  it('derive one view per participant with its own unread count', async () => {
    const { model } = await applyOneByOne(history);
    const a = await view(model, 'a', 'a_user_b');
    const b = await view(model, 'b', 'a_user_b');
    expect(a).toMatchObject({ owner: 'a', peer: 'b', unreadCount: 2, pinnedAt: 50, createdAt: 100, updatedAt: 102, listed: true });
    expect(b).toMatchObject({ owner: 'b', peer: 'a', unreadCount: 1, createdAt: 100, updatedAt: 102, listed: true });
    expect(b).not.toHaveProperty('pinnedAt');
    expect(JSON.parse(a?.lastMessage ?? '{}')).toMatchObject({ id: '3', sender: 'b', data: { text: 'm3' } });
  });

  it('are unchanged by redelivery of every event, and a replay in another interleaving of sources gives the same documents', async () => {
    const live = await applyOneByOne(history);
    const once = snapshot(live.memory);
    await live.model.apply(history);
    await live.model.apply([...history].reverse());
    expect(snapshot(live.memory)).toEqual(once);
    const isMessage = (e: EventEnvelope) => e.type === 'MessageSent';
    for (const order of [[...history.filter(isMessage), ...history.filter((e) => !isMessage(e))], [...history.filter((e) => !isMessage(e)), ...history.filter(isMessage)]]) {
      expect(snapshot((await applyOneByOne(order)).memory)).toEqual(once);
    }
  });

  it('give the same documents when a deletion for everyone arrives before the messages it clears (another topic, e.g. a rebuild)', async () => {
    const deletion = testEnvelope('ConversationDeleted', 'conversation:app1:a_user_b', 1, {
      conversationId: 'a_user_b', conversationType: 'user', upToMessageId: '3', deletedBy: 'a', deletedAt: 103,
    });
    const deletedLast = await applyOneByOne([...history, deletion]);
    const deletedFirst = await applyOneByOne([deletion, ...history]);
    expect(sortedSnapshot(deletedFirst.memory)).toEqual(sortedSnapshot(deletedLast.memory));
    expect(deletedFirst.memory.timelines.document<{ clearedUpTo: number; listed: boolean }>('app1:a_user_b')).toMatchObject({ clearedUpTo: 3, listed: false });
  });

  it('move the read marker both ways and never count below zero', async () => {
    const marks = (type: string, version: number, messageId: string) =>
      testEnvelope(type, 'conversation-user:app1:a:a_user_b', version, {
        uid: 'a',
        conversationId: 'a_user_b',
        conversationType: 'user',
        conversationWith: 'b',
        messageId,
        ...(type === 'ConversationRead' ? { readAt: 1 } : { markedAt: 1 }),
      });
    const { model } = await applyOneByOne([...history, marks('ConversationRead', 1, '3')]);
    expect((await view(model, 'a', 'a_user_b'))?.unreadCount).toBe(0);
    await model.apply([marks('ConversationMarkedUnread', 2, '2')]);
    expect((await view(model, 'a', 'a_user_b'))?.unreadCount).toBe(1);
    // A read marker ahead of every message that arrived so far: later messages count again.
    const early = await applyOneByOne([message(1, '1', 'b', 'a'), marks('ConversationRead', 1, '1'), message(2, '2', 'b', 'a')]);
    expect((await view(early.model, 'a', 'a_user_b'))?.unreadCount).toBe(1);
  });

  it('follow deletions: a soft-deleted message stays last but is not unread, a permanent one disappears', async () => {
    const deleted = (version: number, id: string, permanent: boolean) =>
      testEnvelope('MessageDeleted', 'messages:app1:a_user_b', version, { id, conversationId: 'a_user_b', sender: 'b', permanent, deletedAt: 500 });
    const soft = await applyOneByOne([...history, deleted(4, '3', false)]);
    const a = await view(soft.model, 'a', 'a_user_b');
    expect(a?.unreadCount).toBe(1);
    expect(JSON.parse(a?.lastMessage ?? '{}')).toMatchObject({ id: '3', deletedAt: 500 });
    const permanent = await applyOneByOne([...history, deleted(4, '3', true)]);
    const afterPermanent = await view(permanent.model, 'a', 'a_user_b');
    expect(afterPermanent?.unreadCount).toBe(1);
    expect(JSON.parse(afterPermanent?.lastMessage ?? '{}')).toMatchObject({ id: '2' });
  });

  it('neither count thread replies nor show them as the last message', async () => {
    const reply = testEnvelope('MessageSent', 'messages:app1:a_user_b', 4, {
      id: '4', conversationId: 'a_user_b', sender: 'b', receiver: 'a', receiverType: 'user', category: 'message', type: 'text',
      data: { text: 'in thread' }, parentId: '1', sentAt: 200,
    });
    const { model } = await applyOneByOne([...history, reply]);
    expect(await view(model, 'a', 'a_user_b')).toMatchObject({ unreadCount: 2, lastMessageSeq: 3 });
    const timeline = await model.timeline('app1', 'a_user_b');
    expect(await model.holdsMessage(timeline!, 3)).toBe(true);
    expect(await model.holdsMessage(timeline!, 4)).toBe(false);
  });
});

describe('group conversations', () => {
  const group = 'group:app1:g';
  const created = testEnvelope('GroupCreated', group, 1, { guid: 'g', name: 'G', type: 'public', owner: 'a', tags: [], createdAt: 1000 }, T0);
  const added = testEnvelope('GroupMembersAdded', group, 2, { guid: 'g', members: [{ uid: 'a', scope: 'admin' }], addedAt: 1000 }, T0);
  const joined = (version: number, uid: string, atMs: number) =>
    testEnvelope('GroupMemberJoined', group, version, { guid: 'g', uid, scope: 'participant', joinedAt: Math.floor(atMs / 1000) }, atMs);
  const left = (version: number, uid: string, atMs: number) => testEnvelope('GroupMemberLeft', group, version, { guid: 'g', uid, leftAt: Math.floor(atMs / 1000) }, atMs);
  const sent = (version: number, id: string, sender: string, atMs: number, category = 'message') =>
    testEnvelope('MessageSent', 'messages:app1:group_g', version, {
      id, conversationId: 'group_g', sender, receiver: 'g', receiverType: 'group', category, type: category === 'action' ? 'groupMember' : 'text',
      data: { text: `m${id}` }, sentAt: Math.floor(atMs / 1000),
    }, atMs);

  // b joins after message 1, leaves after message 3; message 5 is an action notice.
  const groupEvents = [created, added, joined(3, 'b', T0 + 20), left(4, 'b', T0 + 40)];
  const messageEvents = [sent(1, '1', 'a', T0 + 10), sent(2, '2', 'a', T0 + 30), sent(3, '3', 'a', T0 + 35), sent(4, '4', 'a', T0 + 50), sent(5, '5', 'a', T0 + 60, 'action')];

  it('count for a member only the messages sent while they were a member', async () => {
    const { model } = await applyOneByOne([...groupEvents, ...messageEvents]);
    expect(await view(model, 'b', 'group_g')).toMatchObject({ unreadCount: 2, lastMessageSeq: 3, listed: true, conversationType: 'group', peer: 'g' });
    expect(await view(model, 'a', 'group_g')).toMatchObject({ unreadCount: 0, lastMessageSeq: 5 });
    expect((await model.timeline('app1', 'group_g'))?.group).toMatchObject({ name: 'G', membersCount: 1 });
  });

  it('give the same documents whichever topic arrives first, and once per event', async () => {
    const membershipFirst = await applyOneByOne([...groupEvents, ...messageEvents]);
    const messagesFirst = await applyOneByOne([...messageEvents, ...groupEvents]);
    const interleaved = await applyOneByOne([messageEvents[0]!, created, messageEvents[1]!, added, messageEvents[2]!, ...groupEvents.slice(2), ...messageEvents.slice(3)]);
    for (const other of [messagesFirst, interleaved]) expect(snapshot(other.memory)).toEqual(snapshot(membershipFirst.memory));
    const once = snapshot(membershipFirst.memory);
    await membershipFirst.model.apply([...messageEvents, ...groupEvents]);
    expect(snapshot(membershipFirst.memory)).toEqual(once);
  });

  it('hide the conversation of a deleted group', async () => {
    const deleted = testEnvelope('GroupDeleted', group, 5, { guid: 'g', deletedAt: 2000 }, T0 + 100);
    const { model } = await applyOneByOne([...groupEvents, ...messageEvents, deleted]);
    expect((await view(model, 'a', 'group_g'))?.listed).toBe(false);
  });
});

describe('conversation lists', () => {
  /** Message `id` between `sender` and `receiver`, sent at second 1000 + id (one stream per conversation). */
  const versions = new Map<string, number>();
  const chat = (id: number, sender: string, receiver: string) => {
    const conversationId = sender < receiver ? `${sender}_user_${receiver}` : `${receiver}_user_${sender}`;
    const stream = `messages:app1:${conversationId}`;
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    return testEnvelope('MessageSent', stream, version, {
      id: String(id), conversationId, sender, receiver, receiverType: 'user', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: 1000 + id,
    }, (1000 + id) * 1000);
  };
  const groupMessage = (id: number) =>
    testEnvelope('MessageSent', 'messages:app1:group_g', id, {
      id: String(id), conversationId: 'group_g', sender: 'z', receiver: 'g', receiverType: 'group', category: 'message', type: 'text', data: {}, sentAt: 1000 + id,
    }, (1000 + id) * 1000);
  const reset = (owner: string, conversationId: string, upTo: number) =>
    testEnvelope('ConversationReset', `conversation-user:app1:${owner}:${conversationId}`, 1, {
      uid: owner, conversationId, conversationType: 'user', conversationWith: 'x', upToMessageId: String(upTo), deleteMessagesPermanently: false, resetAt: 1,
    });
  const pinned = (owner: string, conversationId: string, version: number) =>
    testEnvelope('ConversationPinned', `conversation-pins:app1:${owner}`, version, {
      uid: owner, conversationId, conversationType: 'user', conversationWith: conversationId.replace(`${owner}_user_`, '').replace(`_user_${owner}`, ''), pinnedAt: 5,
    });
  const groupLife = [
    testEnvelope('GroupCreated', 'group:app1:g', 1, { guid: 'g', name: 'G', type: 'public', owner: 'z', tags: [], createdAt: 900 }, 900_000),
    testEnvelope('GroupMembersAdded', 'group:app1:g', 2, { guid: 'g', members: [{ uid: 'u', scope: 'participant' }, { uid: 'z', scope: 'admin' }], addedAt: 900 }, 900_000),
  ];

  // u talks with p1…p9 (p9 most recently), is in group g (its message 15 lands between p4 and p5),
  // pinned p2, and reset p6 (hidden until a newer message).
  versions.clear();
  const peers = Array.from({ length: 9 }, (_, i) => `p${i + 1}`);
  const events = [
    ...groupLife,
    ...peers.map((peer, i) => chat(10 + i * (i < 4 ? 1 : 2), peer, 'u')),
    groupMessage(15),
    reset('u', 'p6_user_u', 20),
    pinned('u', 'p2_user_u', 1),
  ];
  const globalPins: GlobalPin[] = [{ conversationType: 'user', conversationWith: 'p1', pinnedAt: 1 }];
  const ids = (page: { items: Array<{ conversationId: string }> }) => page.items.map((item) => item.conversationId);
  const expectedOrder = ['p1_user_u', 'p2_user_u', 'p9_user_u', 'p8_user_u', 'p7_user_u', 'p5_user_u', 'group_g', 'p4_user_u', 'p3_user_u'];

  const list = (model: ConversationReadModel, page: number, perPage: number, filter: ConversationFilter = {}) =>
    model.listForUser('app1', 'u', globalPins, filter, page, perPage);

  it('order app-wide pins, own pins, then activity with groups merged in; pages agree with the scanning path', async () => {
    const { model } = await applyOneByOne(events);
    const all = await list(model, 1, 50);
    expect(ids(all)).toEqual(expectedOrder);
    expect(all.total).toBe(9);
    expect(all.groups.get('group_g')).toMatchObject({ name: 'G' });
    for (const perPage of [1, 2, 4]) {
      const pages = [];
      for (let page = 1; page <= Math.ceil(9 / perPage); page++) pages.push(...ids(await list(model, page, perPage)));
      expect(pages).toEqual(expectedOrder);
    }
    // A filter that keeps everything goes through the scans and must give the same list.
    expect(ids(await list(model, 1, 50, { peers: [...peers, 'g'] }))).toEqual(expectedOrder);
  });

  it('past a small inbox bound: the first pages from the inbox, deeper pages from the scans, the same order and total', async () => {
    const { model, memory } = await applyOneByOne(events, { inboxSize: 3 });
    expect(memory.inboxes.document<{ recent: unknown[]; started: number }>('app1:u')).toMatchObject({ started: 9 });
    const pages = [];
    for (let page = 1; page <= 5; page++) {
      const result = await list(model, page, 2);
      expect(result.total).toBe(9);
      pages.push(...ids(result));
    }
    expect(pages).toEqual(expectedOrder);
  });

  it('give the same documents when a reset arrives before the messages it covers (another topic, e.g. a rebuild)', async () => {
    const inOrder = await applyOneByOne(events);
    const resetFirst = await applyOneByOne([events.find((event) => event.type === 'ConversationReset')!, ...events.filter((event) => event.type !== 'ConversationReset')]);
    expect(ids(await list(resetFirst.model, 1, 50))).toEqual(expectedOrder);
    expect(sortedSnapshot(resetFirst.memory)).toEqual(sortedSnapshot(inOrder.memory));
  });

  it('brings a reset conversation back with a newer message, and counts a redelivered first message once', async () => {
    const { model } = await applyOneByOne(events, { inboxSize: 3 });
    await model.apply([chat(40, 'p6', 'u')]);
    expect(ids(await list(model, 1, 3))).toEqual(['p1_user_u', 'p2_user_u', 'p6_user_u']);
    await model.apply(events);
    const again = await list(model, 1, 50);
    expect(again.total).toBe(10);
    expect(again.items).toHaveLength(10);
  });
});

describe('timeline chunks sealed in one batch', () => {
  it('stores every chunk a batch seals, not only the newest (a backlog after an outage comes in runs of hundreds)', async () => {
    const { stores, memory } = memoryConversationStores();
    const model = new ConversationReadModel(stores, { chunkSize: 4 });
    // 2 + 18 messages: the second batch seals chunks 0 to 4 at once.
    const messages = Array.from({ length: 20 }, (_, i) => message(i + 1, String(i + 1), 'a', 'b'));
    await model.apply(messages.slice(0, 2));
    await model.apply(messages.slice(2));
    const chunks = memory.history
      .stored()
      .map((chunk) => (chunk as { k?: number }).k)
      .sort((x, y) => Number(x) - Number(y));
    expect(chunks).toEqual([0, 1, 2, 3, 4]);
    // The reader's unread count walks the chunks: every position must be found.
    expect(await view(model, 'b', 'a_user_b')).toMatchObject({ unreadCount: 20, lastMessageSeq: 20 });
  });
});
