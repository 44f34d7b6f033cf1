import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore, applyInMemory } from '@chat/mongo';
import type { Projection } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { messageInteractionsId, messageInteractionsProjection } from './messageInteractions.js';
import type { MessageInteractionsDoc } from './messageInteractions.js';
import { savedMessagesId, savedMessagesProjection } from './savedMessages.js';
import type { SavedMessagesDoc } from './savedMessages.js';
import { threadSubscriptionId, threadSubscriptionsProjection } from './threadSubscriptions.js';
import type { ThreadSubscriptionDoc } from './threadSubscriptions.js';

/** Through the real runtime (guard and fold) over memory: as one batch, or one event at a time. */
async function applyAll<Doc extends object>(projection: Projection<Doc>, events: EventEnvelope[], oneByOne = false): Promise<Map<string, Doc>> {
  const store = new InMemoryDocumentStore();
  if (oneByOne) for (const event of events) await applyInMemory(projection, [event], store);
  else await applyInMemory(projection, events, store);
  return store.snapshot<Doc>();
}

const savedStream = 'saved-messages:app1:bob';
const save = (version: number, id: string, savedAt: number) =>
  envelope('MessageSaved', savedStream, version, { uid: 'bob', id, conversationId: 'alice_user_bob', savedAt });
const unsave = (version: number, id: string) => envelope('MessageUnsaved', savedStream, version, { uid: 'bob', id, conversationId: 'alice_user_bob', unsavedAt: 50 });

describe('saved messages read model', () => {
  it('lists the most recently saved first; a re-save moves up; replays change nothing', async () => {
    const events = [save(1, '5', 10), save(2, '6', 11), save(3, '5', 12), unsave(4, '6'), save(5, '7', 13)];
    for (const oneByOne of [false, true]) {
      const docs = await applyAll(savedMessagesProjection, [...events, ...events], oneByOne);
      expect(docs.get(savedMessagesId('app1', 'bob'))?.saved).toEqual([
        { id: '7', conversationId: 'alice_user_bob', savedAt: 13 },
        { id: '5', conversationId: 'alice_user_bob', savedAt: 12 },
      ]);
    }
  });

  it('an emptied list is no document', async () => {
    const docs = await applyAll<SavedMessagesDoc>(savedMessagesProjection, [save(1, '5', 10), unsave(2, '5')]);
    expect(docs.size).toBe(0);
  });
});

const wish = (type: 'ThreadSubscribed' | 'ThreadUnsubscribed', version: number, atMs: number, uid = 'bob') =>
  envelope(type, `thread-subscription:app1:${uid}:5`, version, { uid, parentId: '5', conversationId: 'group_club', at: Math.floor(atMs / 1000) }, atMs);
const reply = (version: number, id: string, sender: string, atMs: number, extra: Record<string, unknown> = {}) =>
  envelope('MessageSent', 'messages:app1:group_club', version, {
    id, conversationId: 'group_club', sender, receiver: 'club', receiverType: 'group', category: 'message', type: 'text',
    data: { text: 'x' }, parentId: '5', sentAt: Math.floor(atMs / 1000), ...extra,
  }, atMs);

describe('thread subscriptions read model', () => {
  it('a reply subscribes its sender and the users it mentions; a plain message subscribes nobody', async () => {
    const plain = envelope('MessageSent', 'messages:app1:group_club', 1, {
      id: '4', conversationId: 'group_club', sender: 'amy', receiver: 'club', receiverType: 'group', category: 'message', type: 'text', data: {}, sentAt: 1,
    });
    const docs = await applyAll<ThreadSubscriptionDoc>(threadSubscriptionsProjection, [plain, reply(2, '6', 'bob', 1000, { mentionedUids: ['cleo'] })]);
    expect([...docs.keys()].sort()).toEqual([threadSubscriptionId('app1', 'bob', '5'), threadSubscriptionId('app1', 'cleo', '5')]);
    expect(docs.get(threadSubscriptionId('app1', 'cleo', '5'))).toMatchObject({ subscribed: true, parentId: '5', conversationId: 'group_club' });
  });

  it('the newest word wins whichever stream brings it, in any order of arrival', async () => {
    const unsubscribed = wish('ThreadUnsubscribed', 1, 2000);
    const repliedBefore = reply(2, '6', 'bob', 1000);
    const repliedAfter = reply(3, '7', 'bob', 3000);
    const id = threadSubscriptionId('app1', 'bob', '5');
    expect((await applyAll<ThreadSubscriptionDoc>(threadSubscriptionsProjection, [repliedBefore, unsubscribed])).get(id)?.subscribed).toBe(false);
    expect((await applyAll<ThreadSubscriptionDoc>(threadSubscriptionsProjection, [unsubscribed, repliedBefore])).get(id)?.subscribed).toBe(false);
    expect((await applyAll<ThreadSubscriptionDoc>(threadSubscriptionsProjection, [repliedAfter, unsubscribed], true)).get(id)?.subscribed).toBe(true);
    expect((await applyAll<ThreadSubscriptionDoc>(threadSubscriptionsProjection, [unsubscribed, repliedAfter, unsubscribed])).get(id)?.subscribed).toBe(true);
  });
});

describe('message interactions read model', () => {
  it('adds each user’s element once, in first-use order, whatever is replayed', async () => {
    const mark = (uid: string, version: number, elementIds: string[], at: number) =>
      envelope('MessageInteracted', `message-interactions:app1:${uid}:5`, version, { uid, id: '5', conversationId: 'alice_user_bob', elementIds, interactedAt: at });
    const events = [mark('bob', 1, ['ok'], 10), mark('amy', 1, ['ok'], 11), mark('bob', 2, ['later'], 12)];
    const docs = await applyAll<MessageInteractionsDoc>(messageInteractionsProjection, [...events, events[0] as EventEnvelope]);
    expect(docs.get(messageInteractionsId('app1', '5'))?.interactions).toEqual([
      { uid: 'bob', elementId: 'ok', interactedAt: 10 },
      { uid: 'amy', elementId: 'ok', interactedAt: 11 },
      { uid: 'bob', elementId: 'later', interactedAt: 12 },
    ]);
  });
});
