import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRetiredIndexes, ensureIndexes } from './indexes.js';

describe('dropRetiredIndexes', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  const db = client.db(`retired_indexes_${randomBytes(4).toString('hex')}`);
  const names = async () => (await db.collection('items').listIndexes().toArray()).map((index) => index.name as string).sort();

  beforeAll(() => client.connect());
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('does nothing to a collection that does not exist yet', async () => {
    await dropRetiredIndexes(db, 'items', ['by_time']);
    expect(await db.listCollections({ name: 'items' }).toArray()).toEqual([]);
  });

  it('drops only the named indexes, and again is a no-op', async () => {
    await ensureIndexes(db, 'items', [
      { keys: { appId: 1, at: 1 }, options: { name: 'by_time' } },
      { keys: { appId: 1, seq: 1 }, options: { name: 'by_seq' } },
    ]);
    await dropRetiredIndexes(db, 'items', ['by_time', 'never_made']);
    expect(await names()).toEqual(['_id_', 'by_seq']);
    await dropRetiredIndexes(db, 'items', ['by_time']);
    expect(await names()).toEqual(['_id_', 'by_seq']);
  });
});
