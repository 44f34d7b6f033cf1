import type { EventEnvelope } from '@chat/contracts';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE } from '../domain/conversationTimeline.js';
import { ConversationReadModel } from './conversationReadModel.js';
import { T0, testEnvelope } from './testEvents.js';
import { memoryConversationStores } from './memoryStores.js';

/** Counts what the read model asks of each collection: the figures issue 8 budgets (reads, inserted documents, guarded writes). */
class CountingStore implements DocumentStore {
  reads = 0;
  inserted = 0;
  writes = 0;
  constructor(private readonly inner: DocumentStore) {}
  findMany(ids: readonly string[]) {
    this.reads += ids.length;
    return this.inner.findMany(ids);
  }
  insert(documents: readonly StoredRecord[]) {
    this.inserted += documents.length;
    return this.inner.insert(documents);
  }
  writeGuarded(writes: readonly GuardedWrite[]) {
    this.writes += writes.length;
    return this.inner.writeGuarded(writes);
  }
}

function countingModel() {
  const counters: CountingStore[] = [];
  const { stores } = memoryConversationStores((store) => {
    const counter = new CountingStore(store);
    counters.push(counter);
    return counter;
  });
  const total = () => {
    const all = counters;
    return { reads: all.reduce((n, s) => n + s.reads, 0), inserted: all.reduce((n, s) => n + s.inserted, 0), writes: all.reduce((n, s) => n + s.writes, 0) };
  };
  return { model: new ConversationReadModel(stores), total };
}

const sent = (conversationId: string, version: number, sender: string, receiver: string, receiverType: 'user' | 'group') =>
  testEnvelope(
    'MessageSent',
    `messages:app1:${conversationId}`,
    version,
    { id: String(version), conversationId, sender, receiver, receiverType, category: 'message', type: 'text', data: { text: `m${version}` }, sentAt: 100 + version },
    T0 + version,
  );

/** Applies the events one batch each (the worst case: nothing to fold together) and returns the store operations per event. */
async function perEvent(model: ConversationReadModel, total: () => { reads: number; inserted: number; writes: number }, events: readonly EventEnvelope[]) {
  const before = total();
  for (const event of events) await model.apply([event]);
  const after = total();
  return {
    reads: (after.reads - before.reads) / events.length,
    inserted: (after.inserted - before.inserted) / events.length,
    writes: (after.writes - before.writes) / events.length,
  };
}

describe('store operations of the conversation read model', () => {
  it('a one-on-one message: its timeline and the two inboxes written, one inserted copy, a sealed chunk every CHUNK_SIZE messages, no read once warm', async () => {
    const { model, total } = countingModel();
    await model.apply([sent('a_user_b', 1, 'a', 'b', 'user')]);
    const steady = await perEvent(model, total, Array.from({ length: 640 }, (_, i) => sent('a_user_b', i + 2, i % 2 ? 'a' : 'b', i % 2 ? 'b' : 'a', 'user')));
    expect(steady).toEqual({ reads: 0, inserted: 1 + 1 / CHUNK_SIZE, writes: 3 });
  });

  it('a one-on-one message delivered again (the consumer after the request path) costs nothing', async () => {
    const { model, total } = countingModel();
    const messages = Array.from({ length: 64 }, (_, i) => sent('a_user_b', i + 1, i % 2 ? 'a' : 'b', i % 2 ? 'b' : 'a', 'user'));
    await model.apply(messages);
    expect(await perEvent(model, total, messages)).toEqual({ reads: 0, inserted: 0, writes: 0 });
  });

  it('a group message and a join or kick cost the same whatever the group size', async () => {
    for (const size of [10, 2000]) {
      const { model, total } = countingModel();
      const group = 'group:app1:g';
      await model.apply([
        testEnvelope('GroupCreated', group, 1, { guid: 'g', name: 'G', type: 'public', owner: 'u0', tags: [], createdAt: 1 }, T0),
        testEnvelope('GroupMembersAdded', group, 2, { guid: 'g', members: Array.from({ length: size }, (_, i) => ({ uid: `u${i}`, scope: 'participant' })), addedAt: 1 }, T0),
      ]);
      const message = await perEvent(model, total, Array.from({ length: 64 }, (_, i) => sent('group_g', i + 1, `u${i % size}`, 'g', 'group')));
      expect(message).toEqual({ reads: 0, inserted: 1 + 1 / CHUNK_SIZE, writes: 1 });
      const join = await perEvent(model, total, [testEnvelope('GroupMemberJoined', group, 3, { guid: 'g', uid: 'newcomer', scope: 'participant', joinedAt: 2, membersCount: size + 1 }, T0 + 1000)]);
      const kick = await perEvent(model, total, [testEnvelope('GroupMemberKicked', group, 4, { guid: 'g', uid: 'u1', kickedAt: 3, membersCount: size }, T0 + 2000)]);
      // The join: the newcomer's member document and inbox are new (read, then inserted) and the timeline's member count is rewritten.
      expect(join).toEqual({ reads: 2, inserted: 2, writes: 1 });
      // The kick: the member's document (read: not written by this process) and the timeline.
      expect(kick.writes).toBe(2);
      expect(kick.reads).toBeLessThanOrEqual(1);
    }
  });
});
