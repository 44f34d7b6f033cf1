import { MongoBulkWriteError } from 'mongodb';
import type { BulkWriteResult, Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { GUARDED_WRITES_PER_COMMAND, MongoDocumentStore } from './mongoDocumentStore.js';

/** A database whose first `failures` inserts fail with this error, as the driver raises it; later ones succeed. */
function failingDb(error: Error, failures = Infinity): Db & { calls: () => number } {
  let calls = 0;
  const collection = {
    insertMany: () => {
      calls += 1;
      return calls <= failures ? Promise.reject(error) : Promise.resolve({ insertedCount: 1 });
    },
  };
  return Object.assign({ collection: () => collection } as unknown as Db, { calls: () => calls });
}

const emptyResult = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 } as unknown as BulkWriteResult;

describe('MongoDocumentStore.insert', () => {
  it('answers the duplicates when every write error is a duplicate key', async () => {
    const error = new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [{ index: 1, code: 11000 }] as never }, emptyResult);
    const store = new MongoDocumentStore(failingDb(error), 'docs');
    expect(await store.insert([{ _id: 'a', _positions: {}, _rev: 1 }, { _id: 'b', _positions: {}, _rev: 1 }])).toEqual(['b']);
  });

  it('retries an insert the connection was lost under, and succeeds once it comes back', async () => {
    const error = new MongoBulkWriteError({ message: 'connection 43 to 127.0.0.1:27017 closed', writeErrors: [] } as never, emptyResult);
    const db = failingDb(error, 1);
    expect(await new MongoDocumentStore(db, 'docs').insert([{ _id: 'a', _positions: {}, _rev: 1 }])).toEqual([]);
    expect(db.calls()).toBe(2);
  });

  it('throws a bulk write error without write errors (the connection failed) when retries do not help: nothing was stored', async () => {
    const error = new MongoBulkWriteError({ message: 'connect ECONNREFUSED 127.0.0.1:27017', writeErrors: [] } as never, emptyResult);
    const store = new MongoDocumentStore(failingDb(error), 'docs');
    await expect(store.insert([{ _id: 'a', _positions: {}, _rev: 1 }])).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('MongoDocumentStore.writeGuarded', () => {
  /** A database whose bulk writes are recorded; each matches every statement but those naming `missing` ids. */
  function recordingDb(missing: ReadonlySet<string>): Db & { commands: string[][] } {
    const commands: string[][] = [];
    const collection = {
      bulkWrite: (operations: Array<{ replaceOne?: { filter: { _id: string } }; deleteOne?: { filter: { _id: string } } }>) => {
        const ids = operations.map((o) => (o.replaceOne ?? o.deleteOne)!.filter._id);
        commands.push(ids);
        const matched = ids.filter((id) => !missing.has(id)).length;
        return Promise.resolve({ ...emptyResult, matchedCount: matched });
      },
    };
    return Object.assign({ collection: () => collection } as unknown as Db, { commands });
  }
  const replace = (id: string) => ({ kind: 'replace' as const, expectedRev: 1, document: { _id: id, _positions: {}, _rev: 2 } });

  it('sends a long guarded write as commands of GUARDED_WRITES_PER_COMMAND, all of it, in order (a send queues behind one short command)', async () => {
    const db = recordingDb(new Set());
    const ids = Array.from({ length: 2 * GUARDED_WRITES_PER_COMMAND + 1 }, (_, i) => `d${i}`);
    expect(await new MongoDocumentStore(db, 'docs').writeGuarded(ids.map(replace))).toEqual([]);
    expect(db.commands.map((c) => c.length)).toEqual([GUARDED_WRITES_PER_COMMAND, GUARDED_WRITES_PER_COMMAND, 1]);
    expect(db.commands.flat()).toEqual(ids);
    expect(GUARDED_WRITES_PER_COMMAND).toBeLessThanOrEqual(4);
  });

  it('answers as lost only the ids of the commands that missed a statement', async () => {
    const ids = Array.from({ length: GUARDED_WRITES_PER_COMMAND + 2 }, (_, i) => `d${i}`);
    const db = recordingDb(new Set([ids.at(-1)!]));
    expect(await new MongoDocumentStore(db, 'docs').writeGuarded(ids.map(replace))).toEqual(ids.slice(GUARDED_WRITES_PER_COMMAND));
  });
});
