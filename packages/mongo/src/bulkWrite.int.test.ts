import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkWriteChunked } from './bulkWrite.js';

// Against the real store: a bulk update three times the size our FerretDB runner accepts in one
// command goes through whole when chunked.
describe('bulkWriteChunked on the real store', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  let db: Db;
  beforeAll(async () => {
    await client.connect();
    db = client.db(`bulk_test_${randomBytes(4).toString('hex')}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('applies 200 upserting updates, every one', async () => {
    const counters = db.collection<{ _id: string; n: number }>('counters');
    const operations = Array.from({ length: 200 }, (_, i) => ({
      updateOne: { filter: { _id: `c${i}` }, update: { $inc: { n: 1 } }, upsert: true },
    }));
    const counts = await bulkWriteChunked(counters, operations);
    expect(counts.upsertedCount).toBe(200);
    expect(counts.upsertedIds[199]).toBe('c199');
    await bulkWriteChunked(counters, operations);
    expect(await counters.countDocuments({ n: 2 })).toBe(200);
  });
});
