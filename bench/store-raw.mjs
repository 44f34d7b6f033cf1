// The store's raw rates through the FerretDB runner (or any MongoDB at MONGO_URL), with no service in
// between: insertOne/s, insertMany(100) docs/s, findOne by `_id`/s, and updateOne by `_id` alone and by
// the read models' compare-and-set filter `{_id, _rev}` on collections of 5,000 and 50,000 documents,
// and documents/s read in sets of 50 ids by one `find({_id: {$in}})` (also pushed down by the patch).
// A filter other than `{_id}` alone was a full collection scan on FerretDB's SQLite backend before our
// pushdown patch (ADR 0011), so the guarded update shows what that patch buys and must not fall as the
// collection grows.
//
//   node bench/store-raw.mjs          (starts only FerretDB on MONGO_PORT unless MONGO_URL is set)
//
// Importable too: measureStoreRaw({ mongoUrl }) returns the figures; the main benchmark prints them
// first as the baseline a send's cost is compared to.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { processCpuMs } from './processCpu.mjs';

const BATCH = 100;
/** Ids per `$in` read: about what a projection batch or an import request reads at once. */
const ID_SET = 50;

/**
 * @typedef {object} Rate
 * @property {number} perSecond  operations (documents, for insertMany) per second
 * @property {number} storeCpuMs  the store process's CPU time per operation (document), in ms: under a
 *   machine shared with other work the rate varies from run to run, this much less; NaN when the store
 *   runs where /proc cannot see it
 */

/**
 * @typedef {object} SizedCollectionFigures
 * @property {number} documents  the collection's size while measuring
 * @property {Rate} updateById  updateOne({_id}) $inc
 * @property {Rate} updateByIdAndRev  updateOne({_id, _rev}) $set _rev + 1, each one matched
 * @property {Rate} findOneByIdAndRev  findOne({_id, _rev})
 * @property {Rate} findOneById  findOne({_id})
 * @property {Rate} findByIdSet  documents per second read by find({_id: {$in: [50 ids]}})
 */

/**
 * @typedef {object} StoreRawFigures
 * @property {number} concurrency  operations in flight at once
 * @property {Rate} insertOne
 * @property {Rate} insertMany  per document, in commands of 100
 * @property {SizedCollectionFigures[]} collections  one entry per collection size, smallest first
 */

/**
 * Measures the store's raw rates in a database of its own, dropped at the end.
 *
 * @param {object} options
 * @param {string} options.mongoUrl
 * @param {number[]} [options.sizes]  collection sizes the updates and reads are measured on
 * @param {number} [options.concurrency]  operations in flight at once (the services run several)
 * @param {number} [options.durationMs]  how long each rate is measured
 * @param {(line: string) => void} [options.log]  progress lines
 * @returns {Promise<StoreRawFigures>}
 */
export async function measureStoreRaw({
  mongoUrl,
  sizes = [5_000, 50_000],
  concurrency = 8,
  durationMs = 3_000,
  log = () => undefined,
}) {
  const client = new MongoClient(mongoUrl, { maxPoolSize: concurrency + 2 });
  const db = client.db(`store_raw_${randomBytes(3).toString('hex')}`);
  try {
    const storePid = await localStorePid(db);
    const rate = (operation) => measureRate(operation, { concurrency, durationMs, storePid });

    const singles = db.collection('singles');
    let single = 0;
    const insertOne = await rate(async () => {
      await singles.insertOne(sampleDocument(`single-${single++}`));
      return 1;
    });
    log(`insertOne: ${formatRate(insertOne)}`);

    const batches = db.collection('batches');
    let batch = 0;
    const insertMany = await rate(async () => {
      const from = batch++ * BATCH;
      await batches.insertMany(Array.from({ length: BATCH }, (_, i) => sampleDocument(`batch-${from + i}`)));
      return BATCH;
    });
    log(`insertMany(${BATCH}): ${formatRate(insertMany, 'docs/s')}`);

    const collections = [];
    const target = db.collection('sized');
    let filled = 0;
    // Each worker owns the ids congruent to its number, so it knows every _rev it guards on and a
    // guarded update that matches nothing is a failure, not a lost race.
    const revisions = new Array(Math.max(0, ...sizes)).fill(0);
    for (const documents of [...sizes].sort((a, b) => a - b)) {
      filled = await fill(target, filled, documents);
      const pick = (worker) => worker + concurrency * Math.floor(Math.random() * Math.floor(documents / concurrency));

      const updateById = await rate(async () => {
        const result = await target.updateOne({ _id: docId(pick(0)) }, { $inc: { counter: 1 } });
        expectOneMatched(result, 'updateOne by _id');
        return 1;
      });
      const updateByIdAndRev = await rate(async (worker) => {
        const n = pick(worker);
        const result = await target.updateOne({ _id: docId(n), _rev: revisions[n] }, { $set: { _rev: revisions[n] + 1 } });
        expectOneMatched(result, 'updateOne by {_id, _rev}');
        revisions[n]++;
        return 1;
      });
      const findOneByIdAndRev = await rate(async (worker) => {
        const n = pick(worker);
        if ((await target.findOne({ _id: docId(n), _rev: revisions[n] })) === null) {
          throw new Error(`findOne by {_id, _rev}: ${docId(n)} at _rev ${revisions[n]} not found`);
        }
        return 1;
      });
      const findOneById = await rate(async () => {
        const id = docId(pick(0));
        if ((await target.findOne({ _id: id })) === null) throw new Error(`findOne by _id: ${id} not found`);
        return 1;
      });
      const findByIdSet = await rate(async () => {
        const ids = Array.from({ length: ID_SET }, () => docId(pick(0)));
        const found = await target.find({ _id: { $in: ids } }).toArray();
        if (found.length !== new Set(ids).size) throw new Error(`find by _id $in: ${found.length} of ${new Set(ids).size} found`);
        return found.length;
      });
      const sized = { documents, updateById, updateByIdAndRev, findOneByIdAndRev, findOneById, findByIdSet };
      collections.push(sized);
      log(formatSized(sized));
    }
    return { concurrency, insertOne, insertMany, collections };
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

/** Formats the figures as the lines the benchmarks print. */
export function formatStoreRaw(figures) {
  return [
    `store raw (${figures.concurrency} in flight; store CPU per operation in brackets): ` +
      `insertOne ${formatRate(figures.insertOne)}, insertMany(${BATCH}) ${formatRate(figures.insertMany, 'docs/s')}`,
    ...figures.collections.map(formatSized),
  ].join('\n');
}

function formatSized({ documents, updateById, updateByIdAndRev, findOneByIdAndRev, findOneById, findByIdSet }) {
  return (
    `store raw, ${documents} documents: updateOne by _id ${formatRate(updateById)}, ` +
    `by {_id, _rev} ${formatRate(updateByIdAndRev)}, findOne by _id ${formatRate(findOneById)}, ` +
    `by {_id, _rev} ${formatRate(findOneByIdAndRev)}, find by $in of ${ID_SET} ids ${formatRate(findByIdSet, 'docs/s')}`
  );
}

function formatRate({ perSecond, storeCpuMs }, unit = '/s') {
  const figure = perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toPrecision(2);
  return Number.isNaN(storeCpuMs) ? `${figure}${unit}` : `${figure}${unit} [${storeCpuMs.toPrecision(2)} ms]`;
}

/**
 * Runs `operation` from `concurrency` workers until `durationMs` has passed; each call returns how
 * many units (documents) it did.
 *
 * @returns {Promise<Rate>}
 */
export async function measureRate(operation, { concurrency, durationMs, storePid }) {
  const cpuBefore = processCpuMs(storePid);
  const started = performance.now();
  const deadline = started + durationMs;
  let units = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        // Not `units += await …`: that reads units before the await and loses the other workers' counts.
        const done = await operation(worker);
        units += done;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: units / seconds, storeCpuMs: (processCpuMs(storePid) - cpuBefore) / units };
}

/** The store's process id when it runs on this machine (FerretDB's serverStatus names it), else undefined. */
export async function localStorePid(db) {
  const status = await db.admin().command({ serverStatus: 1 }).catch(() => ({}));
  const pid = Number(status.pid);
  return Number.isInteger(pid) && existsSync(`/proc/${pid}/stat`) ? pid : undefined;
}

/** Inserts documents `from`..`to`-1 into the sized collection in commands of 100, 4 in flight. */
async function fill(collection, from, to) {
  let next = from;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < to) {
        const start = next;
        next = Math.min(to, next + BATCH);
        const docs = [];
        for (let n = start; n < next; n++) docs.push(sampleDocument(docId(n)));
        await collection.insertMany(docs, { ordered: false });
      }
    }),
  );
  return to;
}

function docId(n) {
  return `doc-${String(n).padStart(6, '0')}`;
}

/** About the shape and size of a read-model document: guard fields, a few strings, a counter. */
export function sampleDocument(id) {
  return {
    _id: id,
    _rev: 0,
    _positions: { main: 1 },
    appId: 'bench-app',
    name: `Name of ${id}`,
    role: 'default',
    metadata: JSON.stringify({ note: 'x'.repeat(80) }),
    counter: 0,
    updatedAt: 1_700_000_000,
  };
}

function expectOneMatched(result, what) {
  if (result.matchedCount !== 1) throw new Error(`${what}: matched ${result.matchedCount}, expected 1`);
}

/**
 * The store a store-only bench measures: `MONGO_URL` when set, else the devstack's FerretDB runner,
 * stopped by `stop()` and on exit, failure and Ctrl-C.
 */
export async function storeForBench() {
  const { registerShutdown, startInfrastructure } = await import('@chat/devstack');
  let stop = async () => undefined;
  registerShutdown(() => stop());
  if (process.env.MONGO_URL) return { mongoUrl: process.env.MONGO_URL, stop: () => stop() };
  const infra = await startInfrastructure({ parts: ['ferretdb'] });
  stop = () => infra.stop();
  return { mongoUrl: infra.mongoUrl, stop: () => stop() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { mongoUrl, stop: stopInfrastructure } = await storeForBench();
  try {
    const figures = await measureStoreRaw({
      mongoUrl,
      concurrency: Number(process.env.STORE_RAW_CONCURRENCY ?? 8),
      durationMs: Number(process.env.STORE_RAW_DURATION_MS ?? 3_000),
      log: (line) => console.error(`[store-raw] ${line}`),
    });
    console.log(formatStoreRaw(figures));
  } finally {
    await stopInfrastructure();
  }
}
