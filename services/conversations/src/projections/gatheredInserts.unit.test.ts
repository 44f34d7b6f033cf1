import { InMemoryDocumentStore, stripStoredFields } from '@chat/mongo';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { ConversationReadModel } from './conversationReadModel.js';
import type { ConversationStores } from './conversationReadModel.js';
import { GatheredInserts } from './gatheredInserts.js';
import { memoryConversationStores } from './memoryStores.js';
import { MovedStore } from './movedStore.js';
import { RevisionTailStore } from './revisionTailStore.js';
import { T0, testEnvelope } from './testEvents.js';

/** Counts the commands a collection gets: one per call that carries anything. */
class CommandCounter implements DocumentStore {
  inserts: number[] = [];
  constructor(private readonly inner: DocumentStore) {}
  findMany(ids: readonly string[]) {
    return this.inner.findMany(ids);
  }
  insert(documents: readonly StoredRecord[]) {
    if (documents.length > 0) this.inserts.push(documents.length);
    return this.inner.insert(documents);
  }
  writeGuarded(writes: readonly GuardedWrite[]) {
    return this.inner.writeGuarded(writes);
  }
}

const doc = (id: string, value = 1): StoredRecord => ({ _id: id, _positions: {}, _rev: 1, value });

describe('GatheredInserts', () => {
  it('sends the inserts of one turn in one command and answers each store its own duplicates, without its prefix', async () => {
    const target = new CommandCounter(new InMemoryDocumentStore());
    const shared = new GatheredInserts(target);
    const [plain, inboxes, copies] = [shared.store(''), shared.store('~i'), shared.store('~c')];
    await copies.insert([doc('app:7')]);
    expect(target.inserts).toEqual([1]);
    const answers = await Promise.all([plain.insert([doc('app:a~2'), doc('app:b~2')]), inboxes.insert([doc('app:a~2')]), copies.insert([doc('app:7'), doc('app:8')])]);
    expect(target.inserts).toEqual([1, 5]);
    // Only the copy stored before is a duplicate, and only for the copies' store; the same key under two prefixes is two documents.
    expect(answers).toEqual([[], [], ['app:7']]);
    expect([...(await inboxes.findMany(['app:a~2', 'app:b~2'])).keys()]).toEqual(['app:a~2']);
    expect((await copies.findMany(['app:8'])).get('app:8')).toEqual(doc('app:8'));
    expect(await copies.writeGuarded([{ kind: 'replace', document: doc('app:8', 2), expectedRev: 1 }, { kind: 'replace', document: doc('app:9', 2), expectedRev: 1 }])).toEqual(['app:9']);
    expect((await copies.findMany(['app:8'])).get('app:8')?.['value']).toBe(2);
  });

  it('fails every insert of a command that failed', async () => {
    const shared = new GatheredInserts({ ...new InMemoryDocumentStore(), findMany: () => Promise.resolve(new Map()), writeGuarded: () => Promise.resolve([]), insert: () => Promise.reject(new Error('store down')) });
    const results = await Promise.allSettled([shared.store('').insert([doc('a')]), shared.store('~i').insert([doc('a')])]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});

describe('the read model over one appends collection', () => {
  const sent = (version: number, sender: string, receiver: string) => {
    const conversationId = [sender, receiver].sort().join('_user_');
    const id = String(100 + version);
    return testEnvelope('MessageSent', `messages:app1:${conversationId}`, version, {
      id, conversationId, sender, receiver, receiverType: 'user', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: 100 + version,
    }, T0 + version);
  };

  function gatheredStores(appends: DocumentStore, legacy: { inboxRevisions: DocumentStore; copies: DocumentStore }) {
    const { memory, stores } = memoryConversationStores();
    const shared = new GatheredInserts(appends);
    const timelines = new RevisionTailStore(memory.timelines, shared.store(''));
    const inboxes = new RevisionTailStore(memory.inboxes, shared.store('~i'), { legacyTails: legacy.inboxRevisions });
    const composed: ConversationStores = { ...stores, timelines, inboxes, copies: new MovedStore(shared.store('~c'), legacy.copies) };
    return { memory, stores: composed };
  }

  it('writes a run of one-on-one messages with one insert command and reads what the plain stores hold', async () => {
    const appends = new CommandCounter(new InMemoryDocumentStore());
    const { stores } = gatheredStores(appends, { inboxRevisions: new InMemoryDocumentStore(), copies: new InMemoryDocumentStore() });
    const model = new ConversationReadModel(stores);
    const plain = new ConversationReadModel(memoryConversationStores().stores);
    const events = [sent(1, 'a', 'b'), sent(2, 'b', 'a'), sent(3, 'a', 'b'), sent(4, 'a', 'b')];
    // The first message creates the timeline and both inboxes (heads); the others are revisions and copies.
    await model.apply(events.slice(0, 1));
    await plain.apply(events.slice(0, 1));
    appends.inserts = [];
    for (const event of events.slice(1)) {
      await model.apply([event]);
      await plain.apply([event]);
    }
    // Per message: one timeline revision, two inbox revisions and the copy, in one command.
    expect(appends.inserts).toEqual([4, 4, 4]);
    for (const owner of ['a', 'b']) {
      const [mine, theirs] = [await model.facts('app1', owner, 'a_user_b'), await plain.facts('app1', owner, 'a_user_b')];
      expect(mine?.conversation).toEqual(theirs?.conversation);
      expect(await model.listForUser('app1', owner, [], {}, 1, 10)).toEqual(await plain.listForUser('app1', owner, [], {}, 1, 10));
      expect(await model.history('app1', 'a_user_b').message(102)).toEqual(await plain.history('app1', 'a_user_b').message(102));
    }
  });

  it('reads the inbox revisions and message copies stored before the move, and folds such an inbox on its next write', async () => {
    // Before the move: the plain revision layout of ADR 0056 (an inbox revision collection, a copies collection).
    const before = memoryConversationStores();
    const legacy = { inboxRevisions: new InMemoryDocumentStore(), copies: before.memory.copies };
    // The timelines' revisions stay where they are: the appends collection is theirs.
    const appends = new InMemoryDocumentStore();
    const old = new ConversationReadModel({ ...before.stores, inboxes: new RevisionTailStore(before.memory.inboxes, legacy.inboxRevisions), timelines: new RevisionTailStore(before.memory.timelines, appends) });
    const plain = new ConversationReadModel(memoryConversationStores().stores);
    const events = [sent(1, 'a', 'b'), sent(2, 'b', 'a'), sent(3, 'a', 'b')];
    for (const event of events) {
      await old.apply([event]);
      await plain.apply([event]);
    }
    expect(legacy.inboxRevisions.stored().length).toBeGreaterThan(0);
    // After: the same heads and collections.
    const { memory, stores } = gatheredStores(appends, legacy);
    for (const head of before.memory.inboxes.stored()) await memory.inboxes.insert([head]);
    for (const head of before.memory.timelines.stored()) await memory.timelines.insert([head]);
    const moved = new ConversationReadModel(stores);
    for (const owner of ['a', 'b']) expect(await moved.inbox('app1', owner)).toEqual(await plain.inbox('app1', owner));
    expect(await moved.listForUser('app1', 'b', [], {}, 1, 10)).toEqual(await plain.listForUser('app1', 'b', [], {}, 1, 10));
    expect(await moved.history('app1', 'a_user_b').message(101)).toEqual(await plain.history('app1', 'a_user_b').message(101));
    const next = sent(4, 'b', 'a');
    await moved.apply([next]);
    await plain.apply([next]);
    // The inboxes' next write folded them (marked: their revisions are all in the appends collection from now on).
    expect(memory.inboxes.stored().map((head) => head['_tailed'])).toEqual([1, 1]);
    const legacyCount = legacy.inboxRevisions.stored().length;
    const fresh = gatheredStores(appends, legacy);
    for (const head of memory.inboxes.stored()) await fresh.memory.inboxes.insert([head]);
    for (const head of memory.timelines.stored()) await fresh.memory.timelines.insert([head]);
    const reader = new ConversationReadModel(fresh.stores);
    expect(await reader.inbox('app1', 'a')).toEqual(await plain.inbox('app1', 'a'));
    expect(legacy.inboxRevisions.stored().length).toBe(legacyCount);
    expect(stripStoredFields((await moved.facts('app1', 'a', 'a_user_b'))!.conversation as never)).toEqual(stripStoredFields((await plain.facts('app1', 'a', 'a_user_b'))!.conversation as never));
  });
});
