import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ConversationProjector } from './conversationProjector.js';
import type { ConversationProjectionStore } from './conversationProjector.js';
import { MemoryProjectionStore } from './memoryProjectionStore.js';
import { T0, messageSent as message, pinChanged as pinEvent, testEnvelope } from './testEvents.js';

async function applyAll(events: readonly EventEnvelope[], store = new MemoryProjectionStore()) {
  const projector = new ConversationProjector(store);
  for (const event of events) await projector.apply(event);
  return store;
}

const userDoc = (store: MemoryProjectionStore, owner: string, conversationId: string) =>
  store.users.get(`app1:${owner}:${conversationId}`)?.doc;

const history = [
  message(1, '1', 'a', 'b'),
  pinEvent('ConversationPinned', 1),
  message(2, '2', 'b', 'a'),
  message(3, '3', 'b', 'a'),
  pinEvent('ConversationUnpinned', 2),
  pinEvent('ConversationPinned', 3),
];

describe('one-on-one conversations', () => {
  it('keeps one view per participant with its own unread count', async () => {
    const store = await applyAll(history);
    const a = userDoc(store, 'a', 'a_user_b');
    const b = userDoc(store, 'b', 'a_user_b');
    expect(a).toMatchObject({ owner: 'a', peer: 'b', unreadCount: 2, pinnedAt: 50, createdAt: 100, updatedAt: 102, listed: true });
    expect(b).toMatchObject({ owner: 'b', peer: 'a', unreadCount: 1, createdAt: 100, updatedAt: 102, listed: true });
    expect(b).not.toHaveProperty('pinnedAt');
    expect(JSON.parse(a?.lastMessage ?? '{}')).toMatchObject({ id: '3', sender: 'b', data: { text: 'm3' } });
  });

  it('is unchanged by redelivery of every event', async () => {
    const once = await applyAll(history);
    const twice = await applyAll(history, once.clone());
    expect(twice.users).toEqual(once.users);
    expect(twice.shared).toEqual(once.shared);
  });

  it('gives the same documents on a replay from scratch, whatever the interleaving of sources', async () => {
    const live = await applyAll(history);
    const isMessage = (e: EventEnvelope) => e.type === 'MessageSent';
    for (const order of [[...history.filter(isMessage), ...history.filter((e) => !isMessage(e))], [...history.filter((e) => !isMessage(e)), ...history.filter(isMessage)]]) {
      const replayed = await applyAll(order);
      expect([...replayed.users.values()].map((v) => v.doc)).toEqual([...live.users.values()].map((v) => v.doc));
    }
  });

  it('moves the read marker both ways and never counts below zero', async () => {
    const marks = (type: string, version: number, messageId: string) =>
      testEnvelope(type, 'conversation-user:app1:a:a_user_b', version, {
        uid: 'a',
        conversationId: 'a_user_b',
        conversationType: 'user',
        conversationWith: 'b',
        messageId,
        ...(type === 'ConversationRead' ? { readAt: 1 } : { markedAt: 1 }),
      });
    const store = await applyAll([...history, marks('ConversationRead', 1, '3')]);
    expect(userDoc(store, 'a', 'a_user_b')?.unreadCount).toBe(0);
    await applyAll([marks('ConversationMarkedUnread', 2, '2')], store);
    expect(userDoc(store, 'a', 'a_user_b')?.unreadCount).toBe(1);
    // A read marker ahead of every message that arrived so far: later messages count again.
    const early = await applyAll([message(1, '1', 'b', 'a'), marks('ConversationRead', 1, '1'), message(2, '2', 'b', 'a')]);
    expect(userDoc(early, 'a', 'a_user_b')?.unreadCount).toBe(1);
  });

  it('follows deletions: a soft-deleted message stays last but is not unread, a permanent one disappears', async () => {
    const deleted = (version: number, id: string, permanent: boolean) =>
      testEnvelope('MessageDeleted', 'messages:app1:a_user_b', version, { id, conversationId: 'a_user_b', sender: 'b', permanent, deletedAt: 500 });
    const soft = await applyAll([...history, deleted(4, '3', false)]);
    const a = userDoc(soft, 'a', 'a_user_b');
    expect(a?.unreadCount).toBe(1);
    expect(JSON.parse(a?.lastMessage ?? '{}')).toMatchObject({ id: '3', deletedAt: 500 });
    const permanent = await applyAll([...history, deleted(4, '3', true)]);
    expect(userDoc(permanent, 'a', 'a_user_b')?.unreadCount).toBe(1);
    expect(JSON.parse(userDoc(permanent, 'a', 'a_user_b')?.lastMessage ?? '{}')).toMatchObject({ id: '2' });
  });

  it('does not count thread replies nor show them as the last message', async () => {
    const reply = testEnvelope('MessageSent', 'messages:app1:a_user_b', 4, {
      id: '4', conversationId: 'a_user_b', sender: 'b', receiver: 'a', receiverType: 'user', category: 'message', type: 'text',
      data: { text: 'in thread' }, parentId: '1', sentAt: 200,
    });
    const store = await applyAll([...history, reply]);
    expect(userDoc(store, 'a', 'a_user_b')).toMatchObject({ unreadCount: 2, lastMessageSeq: 3 });
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

  // b joins after message 1, leaves after message 3; message 4 is an action notice.
  const groupEvents = [created, added, joined(3, 'b', T0 + 20), left(4, 'b', T0 + 40)];
  const messageEvents = [sent(1, '1', 'a', T0 + 10), sent(2, '2', 'a', T0 + 30), sent(3, '3', 'a', T0 + 35), sent(4, '4', 'a', T0 + 50), sent(5, '5', 'a', T0 + 60, 'action')];

  it('counts for a member only the messages sent while they were a member', async () => {
    const store = await applyAll([...groupEvents, ...messageEvents]);
    expect(userDoc(store, 'b', 'group_g')).toMatchObject({ unreadCount: 2, lastMessageSeq: 3, listed: true, conversationType: 'group', peer: 'g' });
    expect(userDoc(store, 'a', 'group_g')).toMatchObject({ unreadCount: 0, lastMessageSeq: 5 });
    expect(store.shared.get('app1:group_g')?.doc.group).toMatchObject({ name: 'G', membersCount: 1 });
  });

  it('gives the same counts whichever topic arrives first, and once per event', async () => {
    const membershipFirst = await applyAll([...groupEvents, ...messageEvents]);
    const messagesFirst = await applyAll([...messageEvents, ...groupEvents]);
    const interleaved = await applyAll([messageEvents[0]!, created, messageEvents[1]!, added, messageEvents[2]!, ...groupEvents.slice(2), ...messageEvents.slice(3)]);
    for (const other of [messagesFirst, interleaved]) {
      expect([...other.users.entries()].map(([id, v]) => [id, v.doc])).toEqual([...membershipFirst.users.entries()].map(([id, v]) => [id, v.doc]));
    }
    const redelivered = await applyAll([...messageEvents, ...groupEvents], membershipFirst.clone());
    expect(redelivered.users).toEqual(membershipFirst.users);
  });

  it('shows a joining member a message another partition applies between their read and their write', async () => {
    const store = await applyAll([created, added, messageEvents[0]!]);
    const message = sent(2, '2', 'a', T0 + 30);
    // The join reads the shared document; then the message is applied in full (shared document, then
    // the conversation's user documents, which do not include b's yet); then the join writes b's.
    const racing = new ReadsSharedBeforeRival(store, () => new ConversationProjector(store).apply(message));
    await new ConversationProjector(racing).apply(joined(3, 'b', T0 + 20));
    const inOrder = await applyAll([created, added, messageEvents[0]!, joined(3, 'b', T0 + 20), message]);
    expect(userDoc(store, 'b', 'group_g')).toMatchObject({ unreadCount: 1, lastMessageSeq: 2 });
    expect(userDoc(store, 'b', 'group_g')).toEqual(userDoc(inOrder, 'b', 'group_g'));
  });

  it('hides the conversation of a deleted group', async () => {
    const deleted = testEnvelope('GroupDeleted', group, 5, { guid: 'g', deletedAt: 2000 }, T0 + 100);
    const store = await applyAll([...groupEvents, ...messageEvents, deleted]);
    expect(userDoc(store, 'a', 'group_g')?.listed).toBe(false);
  });
});

/** A store whose first user-document update derives from the shared document as it was before a rival applier ran. */
class ReadsSharedBeforeRival implements ConversationProjectionStore {
  constructor(
    private readonly inner: MemoryProjectionStore,
    private rival: (() => Promise<void>) | null,
  ) {}

  async updateUserConversation(...[id, sharedId, change]: Parameters<ConversationProjectionStore['updateUserConversation']>): Promise<void> {
    const rival = this.rival;
    if (!rival) return this.inner.updateUserConversation(id, sharedId, change);
    this.rival = null;
    const before = structuredClone(this.inner.shared.get(sharedId) ?? null);
    await rival();
    return this.inner.updateUserConversation(id, sharedId, (current) => change(current, before));
  }

  updateShared(...args: Parameters<ConversationProjectionStore['updateShared']>) {
    return this.inner.updateShared(...args);
  }

  updateListHead(...args: Parameters<ConversationProjectionStore['updateListHead']>) {
    return this.inner.updateListHead(...args);
  }

  userConversationIds(appId: string, conversationId: string) {
    return this.inner.userConversationIds(appId, conversationId);
  }

  sharedRevision(id: string) {
    return this.inner.sharedRevision(id);
  }
}
