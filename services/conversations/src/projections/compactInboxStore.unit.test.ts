import { InMemoryDocumentStore } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { inboxDocId } from '../domain/inbox.js';
import { ConversationReadModel } from './conversationReadModel.js';
import { CompactInboxStore } from './compactInboxStore.js';
import { memoryConversationStores } from './memoryStores.js';
import { T0, testEnvelope } from './testEvents.js';

const sent = (conversationId: string, version: number, id: number, sender: string, receiver: string) =>
  testEnvelope(
    'MessageSent',
    `messages:app1:${conversationId}`,
    version,
    { id: String(id), conversationId, sender, receiver, receiverType: 'user', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: 100 + id },
    T0 + id,
  );
const reset = (uid: string, conversationId: string, upTo: number) =>
  testEnvelope('ConversationReset', `conversation-user:app1:${uid}:${conversationId}`, 1, { uid, conversationId, upToMessageId: String(upTo), deleteMessagesPermanently: false, resetAt: 500 });

/** Conversations of `a` with three peers, one of them reset, and one with an id no peer gives (`odd`). */
const history = [
  sent('a_user_b', 1, 1, 'a', 'b'),
  sent('a_user_c', 1, 2, 'c', 'a'),
  sent('a_user_b', 2, 3, 'b', 'a'),
  sent('a_user_d', 1, 4, 'a', 'd'),
  reset('a', 'a_user_d', 4),
  sent('odd', 1, 5, 'a', 'e'),
];

describe('inboxes stored with compact entries', () => {
  it('store one-on-one entries without their conversation id and read back the inbox the fold made', async () => {
    const behind = new InMemoryDocumentStore();
    const compact = new ConversationReadModel({ ...memoryConversationStores().stores, inboxes: new CompactInboxStore(behind) });
    const reference = new ConversationReadModel(memoryConversationStores().stores);
    for (const event of history) {
      await compact.apply([event]);
      await reference.apply([event]);
    }
    const stored = behind.document<{ recent: unknown[] }>(inboxDocId('app1', 'a'));
    expect(stored?.recent).toEqual([{ c: 'odd', p: 'e', i: 5, t: 105, s: 1 }, ['b', 3, 103, 1], ['c', 2, 102, 1]]);
    for (const owner of ['a', 'b', 'c', 'd', 'e']) expect(await compact.inbox('app1', owner)).toEqual(await reference.inbox('app1', owner));
    expect(await compact.listForUser('app1', 'a', [], {}, 1, 10)).toEqual(await reference.listForUser('app1', 'a', [], {}, 1, 10));
  });
});
