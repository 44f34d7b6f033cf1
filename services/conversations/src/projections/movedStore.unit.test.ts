import { InMemoryDocumentStore } from '@chat/mongo';
import type { StoredRecord } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { MovedStore } from './movedStore.js';

const doc = (id: string, rev: number, text: string): StoredRecord => ({ _id: id, _positions: {}, _rev: rev, text });

describe('MovedStore', () => {
  it('inserts into the current collection and reads the one stored before where it is, the current one first', async () => {
    const [current, before] = [new InMemoryDocumentStore(), new InMemoryDocumentStore()];
    await before.insert([doc('old', 1, 'old'), doc('both', 3, 'edited before the move')]);
    const store = new MovedStore(current, before);
    expect(await store.insert([doc('new', 1, 'new'), doc('both', 1, 'sent again')])).toEqual([]);
    expect(current.stored().map((stored) => stored._id)).toEqual(['both', 'new']);
    const found = await store.findMany(['old', 'new', 'both', 'absent']);
    expect([...found.values()].map((stored) => stored['text'])).toEqual(['new', 'sent again', 'old']);
  });

  it('writes a document where it was read from, and one it has not read where it is after the loss makes it read', async () => {
    const [current, before] = [new InMemoryDocumentStore(), new InMemoryDocumentStore()];
    await before.insert([doc('old', 1, 'old')]);
    await current.insert([doc('new', 1, 'new')]);
    const store = new MovedStore(current, before);
    await store.findMany(['old', 'new']);
    expect(await store.writeGuarded([{ kind: 'replace', document: doc('old', 2, 'old, edited'), expectedRev: 1 }, { kind: 'replace', document: doc('new', 2, 'new, edited'), expectedRev: 1 }])).toEqual([]);
    expect(before.stored()[0]!['text']).toBe('old, edited');
    expect(current.stored()[0]!['text']).toBe('new, edited');
    // Another process: it never read `old`, so its write goes to the current collection and loses there.
    const other = new MovedStore(current, before);
    expect(await other.writeGuarded([{ kind: 'delete', id: 'old', expectedRev: 2 }])).toEqual(['old']);
    expect((await other.findMany(['old'])).get('old')?._rev).toBe(2);
    expect(await other.writeGuarded([{ kind: 'delete', id: 'old', expectedRev: 2 }])).toEqual([]);
    expect(before.stored()).toEqual([]);
  });
});
