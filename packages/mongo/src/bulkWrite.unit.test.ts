import type { AnyBulkWriteOperation, BulkWriteResult, Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MAX_STATEMENTS_PER_COMMAND, bulkWriteChunked } from './bulkWrite.js';

interface Doc { _id: string; n: number }

/** A collection whose bulkWrite records each call and reports every operation as one upserted update. */
function recordingCollection(failOnCall?: number): { collection: Pick<Collection<Doc>, 'bulkWrite'>; calls: AnyBulkWriteOperation<Doc>[][] } {
  const calls: AnyBulkWriteOperation<Doc>[][] = [];
  const collection: Pick<Collection<Doc>, 'bulkWrite'> = {
    bulkWrite: (operations) => {
      calls.push([...operations]);
      if (calls.length === failOnCall) return Promise.reject(new Error('write failed'));
      const upsertedIds = Object.fromEntries(operations.map((_, i) => [i, `id-${calls.length}-${i}`]));
      const result = {
        insertedCount: 0, matchedCount: operations.length, modifiedCount: operations.length, deletedCount: 0,
        upsertedCount: operations.length, upsertedIds,
      };
      return Promise.resolve(result as unknown as BulkWriteResult);
    },
  };
  return { collection, calls };
}

const updates = (count: number): AnyBulkWriteOperation<Doc>[] =>
  Array.from({ length: count }, (_, i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } }, upsert: true } }));

describe('bulkWriteChunked', () => {
  it('sends at most MAX_STATEMENTS_PER_COMMAND operations per bulk write, all of them, in order', async () => {
    const { collection, calls } = recordingCollection();
    const operations = updates(2 * MAX_STATEMENTS_PER_COMMAND + 7);
    const counts = await bulkWriteChunked(collection, operations);
    expect(calls.map((c) => c.length)).toEqual([MAX_STATEMENTS_PER_COMMAND, MAX_STATEMENTS_PER_COMMAND, 7]);
    expect(calls.flat()).toEqual(operations);
    expect(counts).toMatchObject({ matchedCount: operations.length, modifiedCount: operations.length, upsertedCount: operations.length });
  });

  it('keys upserted ids by the index in the whole list', async () => {
    const { collection } = recordingCollection();
    const counts = await bulkWriteChunked(collection, updates(MAX_STATEMENTS_PER_COMMAND + 2));
    expect(counts.upsertedIds[0]).toBe('id-1-0');
    expect(counts.upsertedIds[MAX_STATEMENTS_PER_COMMAND]).toBe('id-2-0');
    expect(counts.upsertedIds[MAX_STATEMENTS_PER_COMMAND + 1]).toBe('id-2-1');
  });

  it('makes no call for no operations', async () => {
    const { collection, calls } = recordingCollection();
    await expect(bulkWriteChunked(collection, [])).resolves.toMatchObject({ matchedCount: 0 });
    expect(calls).toEqual([]);
  });

  it('stops at the first failing chunk and throws its error', async () => {
    const { collection, calls } = recordingCollection(2);
    await expect(bulkWriteChunked(collection, updates(3 * MAX_STATEMENTS_PER_COMMAND))).rejects.toThrow('write failed');
    expect(calls).toHaveLength(2);
  });
});
