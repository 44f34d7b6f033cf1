import { MongoBulkWriteError } from 'mongodb';
import type { BulkWriteResult, Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MongoDocumentStore } from './mongoDocumentStore.js';

/** A database whose every insert fails with this error, as the driver raises it. */
function failingDb(error: Error): Db {
  const collection = { insertMany: () => Promise.reject(error) };
  return { collection: () => collection } as unknown as Db;
}

const emptyResult = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 } as unknown as BulkWriteResult;

describe('MongoDocumentStore.insert', () => {
  it('answers the duplicates when every write error is a duplicate key', async () => {
    const error = new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [{ index: 1, code: 11000 }] as never }, emptyResult);
    const store = new MongoDocumentStore(failingDb(error), 'docs');
    expect(await store.insert([{ _id: 'a', _positions: {}, _rev: 1 }, { _id: 'b', _positions: {}, _rev: 1 }])).toEqual(['b']);
  });

  it('throws a bulk write error without write errors (the connection failed): nothing was stored', async () => {
    const error = new MongoBulkWriteError({ message: 'connect ECONNREFUSED 127.0.0.1:27017', writeErrors: [] } as never, emptyResult);
    const store = new MongoDocumentStore(failingDb(error), 'docs');
    await expect(store.insert([{ _id: 'a', _positions: {}, _rev: 1 }])).rejects.toThrow(/ECONNREFUSED/);
  });
});
