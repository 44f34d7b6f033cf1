import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY_CHUNK_SIZE, listKey } from '../../projections/users/userDirectory.js';
import type { UserDoc, UserDocState } from '../../projections/users/users.js';
import { UserDirectory } from './userDirectory.js';

// The directory against the real FerretDB: concurrent syncs lose nothing, chunks roll over, and a
// second sync of the same state changes nothing.
function user(index: number, state: UserDocState = 'active', name = `User ${index}`, appId = 'app1'): UserDoc {
  const uid = `u${String(index).padStart(5, '0')}`;
  return {
    appId,
    uid,
    name,
    sortName: name.toLowerCase(),
    listKey: listKey(new Date(Date.UTC(2026, 0, 1) + index).toISOString(), uid),
    role: 'default',
    tags: [],
    status: 'offline',
    state,
    createdAt: 1,
    updatedAt: 1,
  };
}

/** Each chunk's number of entries, in the directory's order. */
async function chunkSizes(db: Db, appId: string): Promise<number[]> {
  const directory = await db.collection('userdirectories').findOne({ _id: appId } as object);
  const refs = JSON.parse(String(directory?.['chunks'] ?? '[]')) as { id: number }[];
  const chunks = await db.collection('userdirectorychunks').find({ _id: { $regex: `^${appId}:` } } as object).toArray();
  const sizes = new Map(chunks.map((c) => [String(c['_id']), (JSON.parse(String(c['entries'])) as unknown[]).length]));
  return refs.map((ref) => sizes.get(`${appId}:${ref.id}`) ?? -1);
}

/** The listing's uids walked by cursor, 100 a page. */
async function walkByCursor(directory: UserDirectory, appId: string): Promise<string[]> {
  const walked: string[] = [];
  for (let key = ''; ; ) {
    const next = await directory.pageAfter(appId, key, 100);
    walked.push(...next.users.map((u) => u.uid));
    if (!next.more) return walked;
    key = (next.users.at(-1) as UserDoc).listKey;
  }
}

/** Bounds, not exact sizes (racing writers cut chunks differently): none over the limit, none missing, none named twice. */
function expectBounded(sizes: number[], users: number, maxChunks: number): void {
  expect(sizes.every((size) => size >= 1 && size <= DIRECTORY_CHUNK_SIZE), `chunk sizes ${sizes.join('/')}`).toBe(true);
  expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(users);
  expect(sizes.length, `chunk sizes ${sizes.join('/')}`).toBeLessThanOrEqual(maxChunks);
}

describe('user directory on FerretDB', () => {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017');
  let db: Db;
  beforeAll(async () => {
    await client.connect();
    db = client.db(`directory_test_${randomBytes(4).toString('hex')}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('keeps every user of concurrent syncs, in order, across a chunk boundary', async () => {
    const directory = new UserDirectory(db);
    const count = DIRECTORY_CHUNK_SIZE + 30;
    // Out of order and twelve at a time: the self-apply and the consumer race like this.
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => ((a * 7919) % count) - ((b * 7919) % count));
    for (let i = 0; i < order.length; i += 12) {
      await Promise.all(order.slice(i, i + 12).map((index) => directory.sync(user(index))));
    }
    const first = await directory.page('app1', 1, 100);
    expect(first.total).toBe(count);
    expect(first.users.map((u) => u.uid)).toEqual(Array.from({ length: 100 }, (_, i) => user(i).uid));
    const last = await directory.page('app1', Math.ceil(count / 100), 100);
    expect(last.users.at(-1)?.uid).toBe(user(count - 1).uid);
    const all = await directory.page('app1', 1, 1000 + count);
    expect(new Set(all.users.map((u) => u.uid)).size).toBe(count);
  }, 120_000);

  it('places a burst of new users (an import) chunk by chunk, with two replicas racing, in order', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const count = 3 * DIRECTORY_CHUNK_SIZE + 10;
    const users = Array.from({ length: count }, (_, i) => user(i, 'active', `User ${i}`, 'burst'));
    // Batches of 50 (an import request), each applied by both (request path and another replica's consumer).
    const batches = Array.from({ length: Math.ceil(count / 50) }, (_, i) => users.slice(i * 50, i * 50 + 50));
    await Promise.all(batches.flatMap((batch) => [one.syncAll(batch), other.syncAll([...batch].reverse())]));
    const all = await one.page('burst', 1, 2 * count);
    expect(all.total).toBe(count);
    expect(all.users.map((u) => u.uid)).toEqual(users.map((u) => u.uid));
    // Bounded chunks, not one chunk per lost race: at most one per request's batch.
    expectBounded(await chunkSizes(db, 'burst'), count, batches.length);
  }, 120_000);

  it('places an import of users created before the app\'s first in chunks of their own, not in the first chunk (ADR 0142)', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const newest = Array.from({ length: 3 }, (_, i) => user(100_000 + i, 'active', `Newest ${i}`, 'historic'));
    await one.syncAll(newest);
    const count = 2 * DIRECTORY_CHUNK_SIZE + 60;
    const users = Array.from({ length: count }, (_, i) => user(i, 'active', `User ${i}`, 'historic'));
    const batches = Array.from({ length: Math.ceil(count / 50) }, (_, i) => users.slice(i * 50, i * 50 + 50));
    // Each request's batch applied by both replicas at once (the request path and the other's consumer).
    for (const batch of batches) await Promise.all([one.syncAll(batch), other.syncAll([...batch].reverse())]);
    const all = await other.page('historic', 1, 2 * count);
    expect(all.total).toBe(count + newest.length);
    expect(all.users.map((u) => u.uid)).toEqual([...users, ...newest].map((u) => u.uid));
    // The import's users in chunks of their own in front of the app's, none over the limit.
    const sizes = await chunkSizes(db, 'historic');
    expect(sizes.at(-1)).toBe(newest.length);
    expectBounded(sizes, count + newest.length, batches.length + 1);
    // Requests in flight at once finish in any order; single users before every other open a chunk in front.
    const late = Array.from({ length: 300 }, (_, i) => user(count + i, 'active', `Late ${i}`, 'historic'));
    const lateBatches = Array.from({ length: 6 }, (_, i) => late.slice(i * 50, i * 50 + 50));
    const earliest = [user(-3, 'active', 'First', 'historic'), user(-2, 'active', 'Second', 'historic')];
    await Promise.all([
      ...[3, 0, 5, 1, 4, 2].map((i, n) => (n % 2 === 0 ? one : other).syncAll(lateBatches[i] as UserDoc[])),
      ...earliest.map((u, n) => (n % 2 === 0 ? other : one).sync(u)),
    ]);
    const expected = [...earliest, ...users, ...late, ...newest].map((u) => u.uid);
    const listed = await one.page('historic', 1, 2_000);
    expect(listed.users.map((u) => u.uid)).toEqual(expected);
    expect(listed.total).toBe(expected.length);
    // Paging by offset and by cursor walk the same order.
    const pages = await Promise.all(Array.from({ length: Math.ceil(expected.length / 100) }, (_, i) => other.page('historic', i + 1, 100)));
    expect(pages.flatMap((p) => p.users.map((u) => u.uid))).toEqual(expected);
    expect(await walkByCursor(one, 'historic')).toEqual(expected);
    expectBounded(await chunkSizes(db, 'historic'), expected.length, batches.length + lateBatches.length + earliest.length + 1);
  }, 120_000);

  it('fills a chunk opened in front with users created one at a time, each older than every other (ADR 0142, amended)', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const newest = Array.from({ length: 3 }, (_, i) => user(100_000 + i, 'active', `Newest ${i}`, 'descending'));
    await one.syncAll(newest);
    const count = DIRECTORY_CHUNK_SIZE + 10;
    const older = Array.from({ length: count }, (_, i) => user(count - i, 'active', `Older ${i}`, 'descending'));
    // One at a time, newest first, through both replicas in turn (each writes on what it last knew).
    for (const [n, u] of older.entries()) await (n % 2 === 0 ? one : other).sync(u);
    expect(await chunkSizes(db, 'descending')).toEqual([10, DIRECTORY_CHUNK_SIZE, newest.length]);
    const listed = await other.page('descending', 1, 1_000);
    expect(listed.users.map((u) => u.uid)).toEqual([...[...older].reverse(), ...newest].map((u) => u.uid));
    expect(listed.total).toBe(count + newest.length);
  }, 120_000);

  it('splits a full chunk an import lands inside of, with two replicas racing: no chunk over its size (ADR 0142, amended)', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    // The app's own users (even indexes) fill chunks; the import (odd indexes) lands between their entries.
    const own = Array.from({ length: DIRECTORY_CHUNK_SIZE + 20 }, (_, i) => user(2 * i, 'active', `Own ${i}`, 'interleaved'));
    await one.syncAll(own);
    const imported = Array.from({ length: 2 * DIRECTORY_CHUNK_SIZE }, (_, i) => user(2 * i + 1, 'active', `Imported ${i}`, 'interleaved'));
    const batches = Array.from({ length: imported.length / 50 }, (_, i) => imported.slice(i * 50, i * 50 + 50));
    // Two requests in flight at once, each applied by both replicas (one of them in reverse).
    for (let i = 0; i < batches.length; i += 2) {
      await Promise.all(batches.slice(i, i + 2).flatMap((batch) => [one.syncAll(batch), other.syncAll([...batch].reverse())]));
    }
    const expected = [...own, ...imported].sort((a, b) => (a.listKey < b.listKey ? -1 : 1)).map((u) => u.uid);
    const listed = await other.page('interleaved', 1, 2_000);
    expect(listed.users.map((u) => u.uid)).toEqual(expected);
    expect(listed.total).toBe(expected.length);
    expectBounded(await chunkSizes(db, 'interleaved'), expected.length, expected.length);
    const pages = await Promise.all(Array.from({ length: Math.ceil(expected.length / 100) }, (_, i) => one.page('interleaved', i + 1, 100)));
    expect(pages.flatMap((p) => p.users.map((u) => u.uid))).toEqual(expected);
    expect(await walkByCursor(other, 'interleaved')).toEqual(expected);
    await other.sync({ ...(imported[3] as UserDoc), state: 'deleted' });
    expect((await one.page('interleaved', 1, 2_000)).users.map((u) => u.uid)).toEqual(expected.filter((uid) => uid !== imported[3]?.uid));
  }, 180_000);

  it('splits a full chunk for one user inside it; a removal or a rename inside it needs no split', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const own = Array.from({ length: DIRECTORY_CHUNK_SIZE }, (_, i) => user(2 * i, 'active', `Own ${i}`, 'single'));
    await one.syncAll(own);
    await other.sync(user(4, 'active', 'Renamed', 'single'));
    await one.sync(user(6, 'deactivated', 'Own 3', 'single'));
    expect(await chunkSizes(db, 'single')).toEqual([DIRECTORY_CHUNK_SIZE]);
    await other.sync(user(7, 'active', 'Inside', 'single'));
    expect(await chunkSizes(db, 'single')).toEqual([DIRECTORY_CHUNK_SIZE / 2 + 1, DIRECTORY_CHUNK_SIZE / 2]);
    await one.sync(user(1, 'active', 'Also inside', 'single'));
    const listed = await one.page('single', 1, 1_000);
    const expected = [own[0], user(1, 'active', 'Also inside', 'single'), own[1], own[2], user(7, 'active', 'Inside', 'single'), ...own.slice(4)];
    expect(listed.users.map((u) => [u.uid, u.name])).toEqual(expected.map((u) => [u?.uid, u?.uid === 'u00004' ? 'Renamed' : u?.name]));
    expect(listed.total).toBe(DIRECTORY_CHUNK_SIZE + 1);
  }, 120_000);

  it('two replicas writing versions of the same users end with the newest, and the total counts what is listed', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const users = Array.from({ length: 40 }, (_, i) => ({ ...user(i, 'active', `User ${i}`, 'versions'), version: 1 }));
    await one.syncAll(users);
    // A late writer: one replica deletes (v2), then the other writes the creation (v1) it still holds.
    for (const u of users.slice(0, 10)) {
      await one.sync({ ...u, state: 'deleted', version: 2 });
      await other.sync(u);
    }
    // Racing writers: both replicas deactivate users of the same chunk at once, each counting the
    // chunk's live entries from the revision it wrote.
    await Promise.all(users.slice(10, 30).map((u, i) => (i % 2 === 0 ? one : other).sync({ ...u, state: 'deactivated', version: 2 })));
    const listed = await one.page('versions', 1, 100);
    expect(listed.users.map((u) => u.uid)).toEqual(users.slice(30).map((u) => u.uid));
    expect(listed.total).toBe(10);
  }, 120_000);

  it('writes on what it last wrote, and a state another replica moved past costs only a read (ADR 0132)', async () => {
    const [one, other] = [new UserDirectory(db), new UserDirectory(db)];
    const users = Array.from({ length: DIRECTORY_CHUNK_SIZE + 60 }, (_, i) => ({ ...user(i, 'active', `User ${i}`, 'known'), version: 1 }));
    const deleted = (i: number) => ({ ...(users[i] as UserDoc & { version: number }), state: 'deleted' as const, version: 2 });
    // `one` remembers the tail it wrote; `other` then writes to that tail and opens the next chunk.
    await one.syncAll(users.slice(0, 100));
    await other.syncAll(users.slice(100, 280));
    // `one` writes on its remembered tail, loses, and places its users on the store's state.
    await one.syncAll(users.slice(280, 290));
    // `other` lists users `one` has not seen; `one` removes one of them: its copy of the tail cannot show
    // the user, so it reads the stored chunk before it concludes there is nothing to remove.
    await other.syncAll(users.slice(290, 305));
    await one.syncAll([deleted(300)]);
    await other.syncAll(users.slice(305, 310));
    await one.sync(deleted(306));
    // A user `one` listed is deleted by `other`; `one` applying the older creation again changes nothing.
    await other.sync(deleted(5));
    await one.syncAll(users.slice(0, 10));
    const gone = new Set([5, 300, 306]);
    const listed = await other.page('known', 1, 1_000);
    expect(listed.users.map((u) => u.uid)).toEqual(users.filter((_, i) => !gone.has(i)).map((u) => u.uid));
    expect(listed.total).toBe(users.length - gone.size);
    // Seeding (bench/users-list.mjs) rewrites the app with revisions from 1 again: what `one` knew of it is forgotten.
    await one.replaceAll('known', users.slice(0, 300));
    await one.syncAll(users.slice(300, 310));
    expect((await other.page('known', 1, 1_000)).users.map((u) => u.uid)).toEqual(users.map((u) => u.uid));
  }, 120_000);

  it('follows deactivation, renames and deletion; the same state twice changes nothing', async () => {
    const directory = new UserDirectory(db);
    await directory.sync(user(1, 'deactivated'));
    await directory.sync(user(2, 'active', 'Renamed'));
    await directory.sync(user(3, 'deleted'));
    const before = await db.collection('userdirectorychunks').find({}).toArray();
    await directory.sync(user(2, 'active', 'Renamed'));
    await directory.sync(user(3, 'deleted'));
    expect(await db.collection('userdirectorychunks').find({}).toArray()).toEqual(before);
    const page = await directory.page('app1', 1, 3);
    expect(page.users.map((u) => [u.uid, u.name])).toEqual([
      ['u00000', 'User 0'],
      ['u00002', 'Renamed'],
      ['u00004', 'User 4'],
    ]);
    expect(page.total).toBe(DIRECTORY_CHUNK_SIZE + 30 - 2);
  });
});
