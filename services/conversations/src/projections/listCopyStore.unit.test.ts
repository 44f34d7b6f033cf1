import { InMemoryDocumentStore } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import type { TimelineDoc } from '../domain/conversationTimeline.js';
import { ConversationReadModel } from './conversationReadModel.js';
import { ListCopyOnReadStore } from './listCopyStore.js';
import { memoryConversationStores } from './memoryStores.js';
import { messageSent, testEnvelope } from './testEvents.js';

/** The same history on the plain in-memory timelines and on the timelines behind the store under test. */
async function bothWays(events: Parameters<ConversationReadModel['apply']>[0]) {
  const plain = memoryConversationStores();
  const behind = new InMemoryDocumentStore();
  const wrapped = memoryConversationStores();
  const model = new ConversationReadModel({ ...wrapped.stores, timelines: new ListCopyOnReadStore(behind) });
  const reference = new ConversationReadModel(plain.stores);
  for (const event of events) {
    await model.apply([event]);
    await reference.apply([event]);
  }
  return { model, reference, behind };
}

const deletedForEveryone = (upTo: string) =>
  testEnvelope('ConversationDeleted', 'conversation:app1:a_user_b', 1, { conversationId: 'a_user_b', conversationType: 'user', upToMessageId: upTo, deletedBy: 'a', deletedAt: 300 });

describe('timelines stored without the list copy of their last message', () => {
  it('store the last message once and read back the timeline the fold made', async () => {
    const { model, reference, behind } = await bothWays([messageSent(1, '1', 'a', 'b'), messageSent(2, '2', 'b', 'a', { text: 'x'.repeat(500) })]);
    const stored = behind.document<TimelineDoc>('app1:a_user_b');
    expect(stored).toBeDefined();
    expect(stored).not.toHaveProperty('lastMessage');
    expect(JSON.parse(stored!.last!.message!)).toMatchObject({ id: '2' });
    const read = await model.timeline('app1', 'a_user_b');
    expect(read).toEqual(await reference.timeline('app1', 'a_user_b'));
    expect(JSON.parse(read!.lastMessage!)).toMatchObject({ id: '2', data: { text: 'x'.repeat(500) } });
  });

  it('leave the list without a last message once the conversation is deleted for everyone past it', async () => {
    const { model, reference } = await bothWays([messageSent(1, '1', 'a', 'b'), messageSent(2, '2', 'b', 'a'), deletedForEveryone('2')]);
    const read = await model.timeline('app1', 'a_user_b');
    expect(read).not.toHaveProperty('lastMessage');
    expect(read).toEqual(await reference.timeline('app1', 'a_user_b'));
  });
});
