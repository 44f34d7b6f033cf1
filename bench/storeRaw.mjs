// The store's own speed, with the plain `mongodb` driver and nothing of ours in between: the baseline
// every send-path figure is divided by. It writes to a scratch database of its own, dropped afterwards,
// on the same server the services use, so it measures exactly what they get.
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';

/** A document about the size and shape of one commit holding one message (≈0.7 KB). */
function commitLikeDocument(index) {
  return {
    _id: `raw-${index}-${randomBytes(4).toString('hex')}`,
    appId: 'raw',
    streamId: `raw-stream-${index % 1000}`,
    startVersion: index,
    endVersion: index,
    events: 'x'.repeat(600),
    committedAt: new Date(),
    published: true,
  };
}

/** Runs `one` from `concurrency` loops until `seconds` have passed; resolves with the count done. */
async function repeatFor(seconds, concurrency, one) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let index = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        done += await one(index++);
      }
    }),
  );
  return done;
}

/**
 * insertOne/s for each number of concurrent writers in `writers` (FerretDB serialises writes, and
 * concurrent single inserts have been seen to lose throughput there: the services write concurrently,
 * so both matter), and insertMany docs/s (batches of `batch`, one writer), on a fresh scratch database.
 * `insertOnePerSecond` is the best of the insertOne figures: the baseline.
 *
 * @param {string} mongoUrl
 * @param {{ seconds?: number, writers?: number[], batch?: number }} [options]
 * @returns {Promise<{ insertOne: { writers: number, perSecond: number }[], insertOnePerSecond: number, insertManyDocsPerSecond: number }>}
 */
export async function measureStoreRaw(mongoUrl, { seconds = 5, writers = [1, 8], batch = 100 } = {}) {
  const client = new MongoClient(mongoUrl);
  const db = client.db(`bench_raw_${randomBytes(3).toString('hex')}`);
  try {
    const single = db.collection('single');
    const many = db.collection('many');
    // Create both collections outside the timed part: the first write to a new collection is slower.
    await single.insertOne(commitLikeDocument(-1));
    await many.insertOne(commitLikeDocument(-1));
    const insertOne = [];
    for (const concurrency of writers) {
      const t0 = performance.now();
      const inserted = await repeatFor(seconds, concurrency, async (i) => {
        await single.insertOne(commitLikeDocument(i));
        return 1;
      });
      insertOne.push({ writers: concurrency, perSecond: inserted / ((performance.now() - t0) / 1000) });
    }
    const t1 = performance.now();
    const insertedMany = await repeatFor(seconds, 1, async (i) => {
      const docs = Array.from({ length: batch }, (_, j) => commitLikeDocument(i * batch + j));
      await many.insertMany(docs, { ordered: false });
      return batch;
    });
    const insertManyDocsPerSecond = insertedMany / ((performance.now() - t1) / 1000);
    return { insertOne, insertOnePerSecond: Math.max(...insertOne.map((r) => r.perSecond)), insertManyDocsPerSecond };
  } finally {
    await db.dropDatabase().catch(() => {});
    await client.close();
  }
}
