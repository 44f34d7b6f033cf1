import type { EventEnvelope } from '@chat/contracts';
import { InMemoryDocumentStore, ProjectionRuntime, stripStoredFields } from '@chat/mongo';
import type { StoredRecord } from '@chat/mongo';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConversationReadModel } from './conversationReadModel.js';
import { conversationTimelines } from './conversationTimelines.js';
import type { ConversationStores } from './conversationReadModel.js';
import { memoryConversationStores } from './memoryStores.js';
import { RevisionTailStore, revisionOps, tailId, withRevisions } from './revisionTailStore.js';
import { T0, testEnvelope } from './testEvents.js';

const USERS = ['a', 'b', 'c'] as const;

/** Messages, edits and deletions across the three one-on-one conversations of a, b and c. */
type Op = { kind: 'send'; from: number; to: number } | { kind: 'edit' | 'delete'; pick: number; permanent: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('send' as const), from: fc.nat(2), to: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('edit' as const, 'delete' as const), pick: fc.nat(40), permanent: fc.boolean() }) },
);

function eventsOf(ops: readonly Op[]): EventEnvelope[] {
  const events: EventEnvelope[] = [];
  const versions = new Map<string, number>();
  const sent: { id: string; conversationId: string; sender: string }[] = [];
  let clock = T0;
  const next = (stream: string) => {
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    return version;
  };
  for (const op of ops) {
    clock += 1_000;
    if (op.kind === 'send') {
      const [sender, receiver] = [USERS[op.from]!, USERS[op.to === op.from ? (op.to + 1) % 3 : op.to]!];
      const conversationId = [sender, receiver].sort().join('_user_');
      const id = String(sent.length + 1);
      const stream = `messages:app1:${conversationId}`;
      events.push(testEnvelope('MessageSent', stream, next(stream), {
        id, conversationId, sender, receiver, receiverType: 'user', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: Math.floor(clock / 1000),
      }, clock));
      sent.push({ id, conversationId, sender });
      continue;
    }
    const target = sent[op.pick % Math.max(1, sent.length)];
    if (!target) continue;
    const stream = `messages:app1:${target.conversationId}`;
    events.push(op.kind === 'edit'
      ? testEnvelope('MessageEdited', stream, next(stream), { id: target.id, conversationId: target.conversationId, data: { text: 'edited' }, editedBy: target.sender, editedAt: Math.floor(clock / 1000) }, clock)
      : testEnvelope('MessageDeleted', stream, next(stream), { id: target.id, conversationId: target.conversationId, sender: target.sender, permanent: op.permanent, deletedAt: Math.floor(clock / 1000) }, clock));
  }
  return events;
}

/** The read model's stores with timelines and inboxes as heads plus revisions, and scans that complete the heads. */
function tailedStores(memory: ReturnType<typeof memoryConversationStores>['memory'], tails: { timelines: InMemoryDocumentStore; inboxes: InMemoryDocumentStore }, foldEvery: number) {
  const timelines = new RevisionTailStore(memory.timelines, tails.timelines, { foldEvery, foldOn: ['participants', 'listed'] });
  const inboxes = new RevisionTailStore(memory.inboxes, tails.inboxes, { foldEvery });
  const stores: ConversationStores = {
    timelines,
    inboxes,
    history: memory.history,
    members: memory.members,
    copies: memory.copies,
    scans: {
      async timelinesWith(appId, uid) {
        const heads = new Map(memory.timelines.stored().map((stored) => [stored._id, stored]));
        const all = [...(await timelines.complete(heads)).values()].map((stored) => stripStoredFields(stored) as never as { appId: string; participants?: string[]; conversationType: string });
        return all.filter((doc) => doc.appId === appId && doc.conversationType === 'user' && (doc.participants ?? []).includes(uid)) as never;
      },
      membersOf: () => Promise.resolve([]),
    },
  };
  return { stores, timelines, inboxes };
}

/** Every document of a plain store, and the same ids read through a tailed one, without guard fields. */
async function logical(plain: InMemoryDocumentStore, tailed: RevisionTailStore) {
  const ids = plain.stored().map((stored) => stored._id);
  const read = await tailed.findMany(ids);
  return {
    expected: Object.fromEntries(plain.stored().map((stored) => [stored._id, stripStoredFields(stored)])),
    actual: Object.fromEntries([...read].map(([id, stored]) => [id, stripStoredFields(stored)])),
  };
}

describe('revision changes', () => {
  it('turn any document into the next one, appending to arrays and changing entries in place', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 })),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('x', 'y', 'z', 'open'), json), fc.dictionary(fc.constantFrom('x', 'y', 'z', 'open'), json), (before, after) => {
        const start = { ...before, _id: 'd', _positions: {}, _rev: 4 } as StoredRecord;
        const ops = revisionOps(before, after);
        const { _id, _rev, ...rest } = withRevisions(start, [ops]);
        expect({ _id, _rev }).toEqual({ _id: 'd', _rev: 5 });
        const { _positions, ...body } = rest;
        void _positions;
        expect(body).toEqual(after);
        expect(start).toEqual({ ...before, _id: 'd', _positions: {}, _rev: 4 });
      }),
    );
  });

  it('store an appended entry as the entry alone', () => {
    const entries = [{ i: 1 }, { i: 2 }];
    expect(revisionOps({ open: { k: 0, entries }, n: 2 }, { open: { k: 0, entries: [...entries, { i: 3 }] }, n: 3 })).toEqual([
      ['p', ['open', 'entries'], [{ i: 3 }]],
      ['s', ['n'], 3],
    ]);
  });
});

describe('RevisionTailStore under the conversation read model', () => {
  it('gives the documents of the plain stores and the same views, with two writers, duplicates and any batch sizes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 2, max: 5 }), async (ops, sizes, foldEvery) => {
        const events = eventsOf(ops);
        const plain = memoryConversationStores();
        await new ConversationReadModel(plain.stores, { chunkSize: 3 }).apply(events);

        const shared = memoryConversationStores().memory;
        const tails = { timelines: new InMemoryDocumentStore(), inboxes: new InMemoryDocumentStore() };
        // Two processes: each its own stores (own caches) over the same collections, taking batches in turn, one batch redelivered.
        const writers = [tailedStores(shared, tails, foldEvery), tailedStores(shared, tails, foldEvery)];
        const models = writers.map(({ stores }) => new ConversationReadModel(stores, { chunkSize: 3 }));
        let from = 0;
        for (let turn = 0; from < events.length; turn++) {
          const size = sizes[turn % sizes.length]!;
          const batch = events.slice(from, from + size);
          await Promise.all([models[turn % 2]!.apply(batch), models[(turn + 1) % 2]!.apply(events.slice(Math.max(0, from - 2), from + 1))]);
          from += size;
        }
        for (const [name, tailed] of [['timelines', writers[0]!.timelines], ['inboxes', writers[1]!.inboxes]] as const) {
          const { expected, actual } = await logical(plain.memory[name], tailed);
          expect(actual).toEqual(expected);
        }
        for (const owner of USERS) {
          const want = await new ConversationReadModel(plain.stores, { chunkSize: 3 }).listForUser('app1', owner, [], {}, 1, 10);
          expect(await models[0]!.listForUser('app1', owner, [], {}, 1, 10)).toEqual(want);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('writes a message as a small inserted revision and folds the head every few revisions', async () => {
    const heads = new InMemoryDocumentStore();
    const tails = new InMemoryDocumentStore();
    const { stores, timelines } = tailedStores({ ...memoryConversationStores().memory, timelines: heads }, { timelines: tails, inboxes: new InMemoryDocumentStore() }, 4);
    const model = new ConversationReadModel(stores, { chunkSize: 3 });
    const sends = eventsOf(Array.from({ length: 10 }, () => ({ kind: 'send' as const, from: 0, to: 1 })));
    for (const event of sends) await model.apply([event]);
    // Revision 1 is the inserted head; 2 … 10 are revisions, folded at 5 and 9.
    expect(heads.stored().map((head) => head._rev)).toEqual([9]);
    expect(tails.stored().map((tail) => tail._id).sort()).toEqual(Array.from({ length: 9 }, (_, i) => tailId('app1:a_user_b', i + 2)).sort());
    const revision = JSON.parse((tails.stored().find((tail) => tail._id === tailId('app1:a_user_b', 10)) as unknown as { d: string }).d) as unknown[];
    expect(JSON.stringify(revision)).not.toContain('m9');
    expect(JSON.stringify(revision)).toContain('m10');
    const read = (await timelines.findMany(['app1:a_user_b'])).get('app1:a_user_b')!;
    expect(read._rev).toBe(10);
    expect((read['totals'] as { n: number }).n).toBe(10);
  });

  it('tells a writer that knows an old revision that it lost, though the head was folded past it', async () => {
    const heads = new InMemoryDocumentStore();
    const tails = new InMemoryDocumentStore();
    const sends = eventsOf(Array.from({ length: 12 }, () => ({ kind: 'send' as const, from: 0, to: 1 })));
    const stale = tailedStores({ ...memoryConversationStores().memory, timelines: heads }, { timelines: tails, inboxes: new InMemoryDocumentStore() }, 3);
    const staleRuntime = new ProjectionRuntime(conversationTimelines(3), stale.timelines);
    await staleRuntime.apply(sends.slice(0, 2));
    const other = tailedStores({ ...memoryConversationStores().memory, timelines: heads }, { timelines: tails, inboxes: new InMemoryDocumentStore() }, 3);
    const otherRuntime = new ProjectionRuntime(conversationTimelines(3), other.timelines);
    for (const event of sends.slice(0, 10)) await otherRuntime.apply([event]);
    expect(heads.stored()[0]!._rev).toBeGreaterThan(2);
    // The stale writer's cache says revision 2: its write of revision 3 must lose, and its retry read the store.
    const lost = await stale.timelines.writeGuarded([{ kind: 'replace', document: { ...(await other.timelines.findMany(['app1:a_user_b'])).get('app1:a_user_b')!, _rev: 3 }, expectedRev: 2 }]);
    expect(lost).toEqual(['app1:a_user_b']);
    await staleRuntime.apply(sends);
    const read = (await other.timelines.findMany(['app1:a_user_b'])).get('app1:a_user_b')!;
    expect((read['totals'] as { n: number }).n).toBe(12);
  });

  it('reads a document stored before it (a head without revisions) as it is, and refuses to delete', async () => {
    const heads = new InMemoryDocumentStore();
    await heads.insert([{ _id: 'x', _positions: { s: 3 }, _rev: 7, value: 1 }]);
    const tails = new InMemoryDocumentStore();
    const store = new RevisionTailStore(heads, tails);
    expect((await store.findMany(['x'])).get('x')).toEqual({ _id: 'x', _positions: { s: 3 }, _rev: 7, value: 1 });
    expect(await store.writeGuarded([{ kind: 'replace', document: { _id: 'x', _positions: { s: 4 }, _rev: 8, value: 2 }, expectedRev: 7 }])).toEqual([]);
    expect((await new RevisionTailStore(heads, tails).findMany(['x'])).get('x')).toEqual({ _id: 'x', _positions: { s: 4 }, _rev: 8, value: 2 });
    await expect(store.writeGuarded([{ kind: 'delete', id: 'x', expectedRev: 8 }])).rejects.toThrow(/cannot be deleted/);
  });

  it('folds a change of a queried field into the head at once, reading the head again when another writer folded it', async () => {
    const heads = new InMemoryDocumentStore();
    const store = new RevisionTailStore(heads, new InMemoryDocumentStore(), { foldEvery: 10, foldOn: ['group'] });
    const doc = (rev: number, group: string, n: number): StoredRecord => ({ _id: 'x', _positions: {}, _rev: rev, group: { name: group }, n });
    await store.insert([doc(1, 'old', 1)]);
    for (const rev of [2, 3]) expect(await store.writeGuarded([{ kind: 'replace', document: doc(rev, 'old', rev), expectedRev: rev - 1 }])).toEqual([]);
    expect(heads.stored()[0]!._rev).toBe(1);
    // Another writer folded revision 3 into the head meanwhile: this store still thinks the head is at 1.
    expect(await heads.writeGuarded([{ kind: 'replace', document: doc(3, 'old', 3), expectedRev: 1 }])).toEqual([]);
    expect(await store.writeGuarded([{ kind: 'replace', document: doc(4, 'new', 4), expectedRev: 3 }])).toEqual([]);
    expect(heads.stored()[0]).toEqual(doc(4, 'new', 4));
    // A change of another field stays a revision.
    expect(await store.writeGuarded([{ kind: 'replace', document: doc(5, 'new', 5), expectedRev: 4 }])).toEqual([]);
    expect(heads.stored()[0]!._rev).toBe(4);
  });

  it('answers a write before its periodic fold, folds one head at a time, and folds again what a failed fold left', async () => {
    const heads = new InMemoryDocumentStore();
    /** The heads' replaces, each held until the test lets it go (or fails it). */
    const held: Array<{ go: () => void; fail: () => void }> = [];
    const slowHeads = Object.assign(Object.create(heads) as InMemoryDocumentStore, {
      writeGuarded: (writes: Parameters<InMemoryDocumentStore['writeGuarded']>[0]) =>
        new Promise<string[]>((resolve, reject) => held.push({ go: () => void heads.writeGuarded(writes).then(resolve, reject), fail: () => reject(new Error('store away')) })),
    });
    const tails = new InMemoryDocumentStore();
    const store = new RevisionTailStore(slowHeads, tails, { foldEvery: 2 });
    const doc = (rev: number): StoredRecord => ({ _id: 'x', _positions: {}, _rev: rev, n: rev });
    const write = (rev: number) => store.writeGuarded([{ kind: 'replace', document: doc(rev), expectedRev: rev - 1 }]);
    await store.insert([doc(1)]);
    // Revision 3 is due a fold: the write answers with the fold still held.
    expect(await write(2)).toEqual([]);
    expect(await write(3)).toEqual([]);
    expect(held).toHaveLength(1);
    // While it is held, a later write due a fold does not start a second one on the same head.
    expect(await write(4)).toEqual([]);
    expect(held).toHaveLength(1);
    held[0]!.fail();
    await store.settled();
    expect(heads.stored()[0]!._rev).toBe(1);
    // The failed fold left the head at 1: the next write folds it.
    expect(await write(5)).toEqual([]);
    expect(held).toHaveLength(2);
    held[1]!.go();
    await store.settled();
    expect(heads.stored()[0]).toEqual(doc(5));
    expect((await new RevisionTailStore(heads, tails).findMany(['x'])).get('x')).toEqual(doc(5));
  });

  it('reads revisions past its fold interval (folds that lost or never ran) in further rounds', async () => {
    const heads = new InMemoryDocumentStore();
    const tails = new InMemoryDocumentStore();
    const writer = new RevisionTailStore(heads, tails, { foldEvery: 50 });
    await writer.insert([{ _id: 'x', _positions: {}, _rev: 1, list: [] }]);
    for (let rev = 2; rev <= 9; rev++) {
      expect(await writer.writeGuarded([{ kind: 'replace', document: { _id: 'x', _positions: {}, _rev: rev, list: Array.from({ length: rev - 1 }, (_, i) => i) }, expectedRev: rev - 1 }])).toEqual([]);
    }
    expect(heads.stored()[0]!._rev).toBe(1);
    const reader = new RevisionTailStore(heads, tails, { foldEvery: 3 });
    expect((await reader.findMany(['x'])).get('x')).toEqual({ _id: 'x', _positions: {}, _rev: 9, list: [0, 1, 2, 3, 4, 5, 6, 7] });
  });
});
