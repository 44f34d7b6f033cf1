import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Collection, Db, MongoBulkWriteError } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// Our FerretDB runner's two fixes (ADR 0011), against the runner the tests start: an update command of
// too many statements is refused at once instead of hanging every writer, and a filter with an `_id`
// equality (or a set of ids, `_id: {$in}`) beside other conditions is fetched by `_id` (FerretDB reports it
// as filter pushdown).
// And concurrent writes to one document keep MongoDB's single-document guarantees while another database
// is written at the same time (the write lock, ADR 0005/0046; the build's patches, ADR 0046).
// An insert answers its duplicates per document whether it ran as one statement in autocommit or as
// several in a transaction (ADR 0098).
// The write-ahead log is checkpointed (SQLite's automatic checkpoint, ADR 0155): what was written reaches the
// database file soon, and a database dropped and made again under the same name starts empty.
// All are properties of our runner only; against another server (MONGO_URL) the cases are skipped.

interface Doc { _id: string; _rev: number; n: number }

const RUNNER_LIMIT = 64; // maxStatementsPerCommand in infra/ferretdb/statements.go

describe('the FerretDB runner', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  let db: Db;
  let docs: Collection<Doc>;
  let isFerretDB = false;
  let other: Db | undefined;

  beforeAll(async () => {
    await client.connect();
    db = client.db(`runner_test_${randomBytes(4).toString('hex')}`);
    docs = db.collection<Doc>('docs');
    const buildInfo = await db.admin().command({ buildInfo: 1 });
    isFerretDB = typeof buildInfo['ferretdbVersion'] === 'string';
    await docs.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: `d${i}`, _rev: 0, n: 0 })));
  });
  afterAll(async () => {
    await other?.dropDatabase();
    await db.dropDatabase();
    await client.close();
  });
  beforeEach((context) => {
    if (!isFerretDB) context.skip();
  });

  const increments = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } } } }));

  it('refuses a 150-statement bulk update at once with BadValue naming the limit, and serves the next write', async () => {
    const started = performance.now();
    const error = await docs.bulkWrite(increments(150)).then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsedMs = performance.now() - started;
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(2);
    expect((error as MongoServerError).message).toContain(`at most ${RUNNER_LIMIT} statements per update command`);
    expect(elapsedMs).toBeLessThan(5_000);
    expect(await docs.countDocuments({ n: { $gt: 0 } })).toBe(0); // nothing of it was applied

    // The same connection pool and the write lock are free: ordinary writes go through right after.
    await expect(docs.updateOne({ _id: 'd0' }, { $inc: { n: 1 } })).resolves.toMatchObject({ modifiedCount: 1 });
    await expect(docs.bulkWrite(increments(RUNNER_LIMIT))).resolves.toMatchObject({ modifiedCount: RUNNER_LIMIT });
    expect((await docs.findOne({ _id: 'd0' }))?.n).toBe(2);
  });

  it('lets big deletes and inserts through: FerretDB holds no connection per statement for them', async () => {
    const extra = db.collection<Doc>('extra');
    await expect(extra.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: `x${i}`, _rev: 0, n: 0 })))).resolves.toMatchObject({ insertedCount: 500 });
    const deletes = Array.from({ length: 150 }, (_, i) => ({ deleteOne: { filter: { _id: `x${i}` } } }));
    await expect(extra.bulkWrite(deletes)).resolves.toMatchObject({ deletedCount: 150 });
  });

  it('fetches by the _id index when other conditions sit beside the _id equality', async () => {
    const explained = await db.command({ explain: { find: 'docs', filter: { _rev: 0, _id: 'd7' } } });
    expect(explained['filterPushdown']).toBe(true);
    const withoutId = await db.command({ explain: { find: 'docs', filter: { _rev: 0 } } });
    expect(withoutId['filterPushdown']).toBe(false);
  });

  it('fetches a set of ids by the _id index, and answers exactly the documents that match', async () => {
    const explained = await db.command({ explain: { find: 'docs', filter: { _id: { $in: ['d3', 'd4', 'nope'] } } } });
    expect(explained['filterPushdown']).toBe(true);
    const found = await docs.find({ _id: { $in: ['d3', 'd4', 'nope', 'd3'] } }).toArray();
    expect(found.map((doc) => doc._id).sort()).toEqual(['d3', 'd4']);
    // Other conditions beside the set stay exact; shapes the patch does not know are scanned, as before.
    expect(await docs.countDocuments({ _id: { $in: ['d5', 'd6'] }, n: -1 })).toBe(0);
    const mixed = await db.command({ explain: { find: 'docs', filter: { _id: { $in: ['d5', 6] } } } });
    expect(mixed['filterPushdown']).toBe(false);
    expect(await docs.countDocuments({ _id: { $in: ['d5', 6] } as never })).toBe(1);
  });

  it('keeps the other conditions of a guarded write exact', async () => {
    await expect(docs.updateOne({ _id: 'd9', _rev: 1 }, { $set: { _rev: 2 } })).resolves.toMatchObject({ matchedCount: 0 });
    await expect(docs.updateOne({ _id: 'd9', _rev: 0 }, { $set: { _rev: 1 } })).resolves.toMatchObject({ matchedCount: 1 });
    await expect(docs.updateOne({ _id: 'd9', _rev: 0 }, { $set: { _rev: 1 } })).resolves.toMatchObject({ matchedCount: 0 });
    expect(await docs.countDocuments({ _id: 'd9', _rev: 1 })).toBe(1);
    expect(await docs.countDocuments({ _id: 'd9', _rev: 0 })).toBe(0);
    await expect(docs.deleteOne({ _id: 'd9', _rev: 0 })).resolves.toMatchObject({ deletedCount: 0 });
    await expect(docs.findOneAndUpdate({ _id: 'd9', _rev: 1 }, { $set: { _rev: 2 } }, { returnDocument: 'after' })).resolves.toMatchObject({ _rev: 2 });
  });

  it('answers an insert’s duplicates per document, in one statement (autocommit) or several (one transaction)', async () => {
    // ADR 0098: an insert that fits one statement no longer runs inside BEGIN … COMMIT.
    const dups = db.collection<{ _id: string; n: number }>('dups');
    await dups.insertOne({ _id: 'taken', n: -1 });
    for (const [count, at] of [[10, 4], [150, 120]] as const) {
      const batch = Array.from({ length: count }, (_, i) => ({ _id: i === at ? 'taken' : `${count}-${i}`, n: i }));
      const refused = await dups.insertMany(batch, { ordered: false }).then(() => undefined, (error: unknown) => error as MongoBulkWriteError);
      expect([refused?.writeErrors].flat()).toEqual([expect.objectContaining({ index: at, code: 11000 })]);
      expect(await dups.countDocuments({ _id: { $in: batch.map((doc) => doc._id) } })).toBe(count);
    }
    expect((await dups.findOne({ _id: 'taken' }))?.n).toBe(-1);
    // A batch with no valid document inserts nothing and answers each document's own error.
    const notAnId = ['not', 'an', 'id'] as unknown as string; // an array is no valid _id
    const invalid = await dups.insertMany([{ _id: notAnId, n: 0 }], { ordered: false }).then(() => undefined, (error: unknown) => error as MongoBulkWriteError);
    const answered = [invalid?.writeErrors].flat();
    expect(answered).toEqual([expect.objectContaining({ index: 0, code: 53 })]); // InvalidIdField
    expect(await dups.countDocuments({})).toBe(1 + 9 + 149);
  });

  it('keeps concurrent writes to one document exact while another database is written', async () => {
    other = client.db(`${db.databaseName}_other`);
    const notes = other.collection<Doc>('notes');
    const counters = db.collection<{ _id: string; n: number }>('counters');
    const racers = 40;
    const [, increments, sequence, guarded, duplicates] = await Promise.all([
      Promise.all(Array.from({ length: racers }, (_, i) => notes.insertOne({ _id: `n${i}`, _rev: 0, n: i }))),
      Promise.all(Array.from({ length: racers }, () => counters.updateOne({ _id: 'shared' }, { $inc: { n: 1 } }, { upsert: true }))),
      Promise.all(Array.from({ length: racers }, () => counters.findOneAndUpdate({ _id: 'seq' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' }))),
      Promise.all(Array.from({ length: racers }, () => docs.updateOne({ _id: 'd20', _rev: 0 }, { $set: { _rev: 1 } }))),
      Promise.allSettled(Array.from({ length: racers }, () => docs.insertOne({ _id: 'dup', _rev: 0, n: 0 }))),
    ]);
    expect(increments.every((r) => r.acknowledged)).toBe(true);
    expect((await counters.findOne({ _id: 'shared' }))?.n).toBe(racers);
    expect(sequence.map((doc) => doc?.n).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: racers }, (_, i) => i + 1));
    expect(guarded.filter((r) => r.modifiedCount === 1)).toHaveLength(1);
    expect(duplicates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = duplicates.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => (r.reason as MongoServerError).code)).toEqual(Array.from({ length: racers - 1 }, () => 11000));
    expect(await notes.countDocuments()).toBe(racers);
  });

  it('keeps the write-ahead log checkpointed: the database file holds the writes soon after, and a drop starts afresh', { timeout: 60_000 }, async (context) => {
    const port = new URL(process.env['MONGO_URL'] ?? `mongodb://127.0.0.1:${process.env['MONGO_PORT'] ?? 27017}`).port;
    const dataDir = join(fileURLToPath(new URL('../../..', import.meta.url)), '.infra', 'ferretdb', `data-${port}`);
    const wal = client.db(`${db.databaseName}_wal`);
    const file = join(dataDir, `${wal.databaseName}.sqlite`);
    const pages = wal.collection<{ _id: number; text: string }>('pages');
    const text = 'x'.repeat(4_000);
    for (let batch = 0; batch < 6; batch++) {
      await pages.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: batch * 500 + i, text })));
    }
    if (!existsSync(file)) context.skip(); // a runner whose directory this test cannot see
    // 3,000 documents of 4 kB: about 12 MB, three times what SQLite's own checkpoint would let the log hold.
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < 10_000_000 && Date.now() < deadline) await sleep(100);
    expect(statSync(file).size).toBeGreaterThan(10_000_000);

    await wal.dropDatabase();
    await sleep(700); // a checkpoint may run meanwhile: it must not bring the old log back
    await pages.insertOne({ _id: 1, text: 'again' });
    expect(await pages.countDocuments()).toBe(1);
    await wal.dropDatabase();
  });
});
