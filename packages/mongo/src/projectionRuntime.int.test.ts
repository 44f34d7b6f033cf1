import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import fc from 'fast-check';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRecord } from './documentStore.js';
import { MongoDocumentStore } from './mongoDocumentStore.js';
import { ProjectionRuntime } from './projectionRuntime.js';
import { removingTallies, tallied, talliesProjection, tallyHistoryArbitrary } from './testTallies.js';
import type { TallyDoc, TallyEvent } from './testTallies.js';
import type { Projection } from './projectionRuntime.js';

// The runtime against the real FerretDB: the same properties as the in-memory tests, through real
// grouped inserts and `{_id, _rev}` compare-and-set commands.
describe('ProjectionRuntime on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  let db: Db;
  let collections = 0;
  beforeAll(async () => {
    await client.connect();
    db = client.db(`runtime_test_${randomBytes(4).toString('hex')}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  function freshCollection(): string {
    collections += 1;
    return `tallies_${collections}`;
  }

  function runtimeOn(collection: string, projection: Projection<TallyDoc, TallyEvent> = talliesProjection) {
    return new ProjectionRuntime(projection, new MongoDocumentStore(db, collection));
  }

  async function storedIn(collection: string): Promise<StoredRecord[]> {
    return db.collection<StoredRecord>(collection).find({}).sort({ _id: 1 }).toArray();
  }

  async function documentsIn(collection: string): Promise<Array<Record<string, unknown>>> {
    return (await storedIn(collection)).map(({ _positions, _rev, ...doc }) => {
      void _positions;
      void _rev;
      return doc;
    });
  }

  it('one batch gives the same documents as one event at a time, with or without removals (property)', async () => {
    await fc.assert(
      fc.asyncProperty(tallyHistoryArbitrary, fc.boolean(), async (history, removing) => {
        const projection = removing ? removingTallies : talliesProjection;
        const [batched, single] = [freshCollection(), freshCollection()];
        await runtimeOn(batched, projection).apply(history);
        const oneByOne = runtimeOn(single, projection);
        for (const event of history) await oneByOne.apply([event]);
        expect(await documentsIn(batched)).toEqual(await documentsIn(single));
      }),
      { numRuns: 12 },
    );
  });

  it('redelivery changes nothing and a replay from scratch gives identical documents', async () => {
    await fc.assert(
      fc.asyncProperty(tallyHistoryArbitrary, async (history) => {
        const live = freshCollection();
        await runtimeOn(live).apply(history);
        const before = await storedIn(live);
        // A restarted consumer (empty memory) meets everything again.
        await runtimeOn(live).apply(history);
        expect(await storedIn(live)).toEqual(before);
        const rebuilt = freshCollection();
        await runtimeOn(rebuilt).apply(history);
        expect(await documentsIn(rebuilt)).toEqual(await documentsIn(live));
      }),
      { numRuns: 8 },
    );
  });

  it('two writers racing over the same documents lose no update', async () => {
    const collection = freshCollection();
    const history: EventEnvelope[] = [];
    for (let version = 1; version <= 40; version++) history.push(tallied(`s:${version % 3}`, Math.ceil(version / 3), ['d1', `d${version % 5}`]));
    const byStream = (stream: string) => history.filter((event) => event.streamId === stream);
    // Each writer applies whole streams in order, in batches of different sizes, at the same time.
    await Promise.all([
      (async () => {
        const writer = runtimeOn(collection);
        for (const event of history) await writer.apply([event]);
      })(),
      (async () => {
        const writer = runtimeOn(collection);
        for (const stream of ['s:0', 's:1', 's:2']) await writer.apply(byStream(stream));
      })(),
    ]);
    const reference = freshCollection();
    await runtimeOn(reference).apply(history);
    const d1 = (await documentsIn(collection)).find((doc) => doc['_id'] === 'd1') as unknown as TallyDoc;
    expect(d1.total).toBe(40);
    expect([...d1.seen].sort()).toEqual(history.map((event) => `${event.streamId}@${event.version}`).sort());
    expect(await documentsIn(collection)).toHaveLength((await documentsIn(reference)).length);
  });

  it('splits a batch touching hundreds of documents into commands the store answers', async () => {
    const collection = freshCollection();
    const ids = Array.from({ length: 230 }, (_, index) => `n${index}`);
    const runtime = runtimeOn(collection);
    await runtime.apply(ids.map((id, index) => tallied(`s:${id}`, 1, [id], 'open', index)));
    // A fresh runtime (no memory) must read and replace every one of them.
    await runtimeOn(collection).apply(ids.map((id) => tallied(`s:${id}`, 2, [id], 'add', 1)));
    const stored = await storedIn(collection);
    expect(stored).toHaveLength(230);
    expect(stored.every((doc) => doc._rev === 2 && (doc as unknown as TallyDoc).seen.length === 2)).toBe(true);
  });
});
