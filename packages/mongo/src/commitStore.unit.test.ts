import { MongoBulkWriteError } from 'mongodb';
import type { BulkWriteResult, Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MongoCommitStore } from './commitStore.js';

/**
 * A store whose insertMany stores the first document and then loses the connection (as FerretDB closing a
 * connection under the command does); another writer already holds `s3@1`.
 */
function halfWrittenDb() {
  const commits = new Map<string, { _id: string; commitId: string }>([['s3@1', { _id: 's3@1', commitId: 'theirs' }]]);
  const collection = {
    insertOne: (doc: { _id: string; commitId: string }) => {
      if (commits.has(doc._id)) return Promise.reject(Object.assign(new Error('E11000'), { code: 11000 }));
      commits.set(doc._id, doc);
      return Promise.resolve({});
    },
    insertMany: (docs: Array<{ _id: string; commitId: string }>) => {
      if (!commits.has(docs[0]!._id)) commits.set(docs[0]!._id, docs[0]!);
      const error = new MongoBulkWriteError({ message: 'connection 43 to 127.0.0.1:27017 closed', writeErrors: [] } as never, {} as BulkWriteResult);
      return Promise.reject(error);
    },
    findOne: (filter: { _id: string }) => Promise.resolve(commits.get(filter._id) ?? null),
    // The by-ids read (`findByIds`): one `_id`, or `_id: {$in}`.
    find: (filter: { _id: string | { $in: string[] } }) => ({
      toArray: () => {
        const ids = typeof filter._id === 'string' ? [filter._id] : filter._id.$in;
        return Promise.resolve(ids.flatMap((id) => commits.get(id) ?? []));
      },
    }),
  };
  const db = { collection: () => collection } as unknown as Db;
  return { db, commits };
}

const commit = (streamId: string, commitId: string, position: number) => ({
  commitId,
  appId: 'app',
  streamId,
  startVersion: 1,
  endVersion: 1,
  position,
  events: [],
  committedAt: new Date(0),
});

describe('MongoCommitStore.appendBatch when the connection is lost under the insert', () => {
  it('finds what landed by id: ours is appended, another writer’s is a conflict, a missing one is inserted again', async () => {
    const { db, commits } = halfWrittenDb();
    const store = new MongoCommitStore(db);
    const results = await store.appendBatch({ position: 1, commits: [commit('s1', 'a', 1), commit('s2', 'b', 2), commit('s3', 'c', 3)] });
    expect(results).toEqual(['appended', 'appended', 'conflict']);
    expect(commits.get('s2@1')?.commitId).toBe('b');
    expect(commits.get('s3@1')?.commitId).toBe('theirs');
  });
});

describe('MongoCommitStore.readHead after a head held in memory', () => {
  /** Commits by `_id`; the saved-heads collection must not be read. */
  function storeWith(commits: Record<string, { endVersion: number; snapshot?: string }>) {
    const lookedUp: string[] = [];
    const db = {
      collection: (name: string) => ({
        findOne: (filter: { _id: string }) => {
          if (name.endsWith('_heads')) return Promise.reject(new Error('the saved head was read'));
          lookedUp.push(filter._id);
          return Promise.resolve(commits[filter._id] ?? null);
        },
      }),
    } as unknown as Db;
    return { store: new MongoCommitStore(db), lookedUp };
  }

  it('answers the same head after one look-up when nothing follows it, else the newest commit after it', async () => {
    const held = { version: 2, snapshot: { version: 1, state: { n: 2 } } };
    const quiet = storeWith({});
    expect(await quiet.store.readHead('s', { after: held })).toBe(held);
    expect(quiet.lookedUp).toEqual(['s@3']);

    const moved = storeWith({ 's@3': { endVersion: 4, snapshot: JSON.stringify({ version: 1, state: { n: 4 } }) }, 's@5': { endVersion: 5 } });
    expect(await moved.store.readHead('s', { after: held })).toEqual({ version: 5 });
    expect(moved.lookedUp).toEqual(['s@3', 's@5', 's@6']);
  });
});
