// The aged data directory of issue 23 (ADR 0074): history built in minutes from what the services
// themselves wrote, and the figures of a fresh and an aged run side by side.
//
// buildAgedHistory copies the apps a first (fresh) run of bench/cost.mjs left behind: every document of
// the stack's own databases that names one of those apps (its commits, read models, message copies,
// revisions, webhook deliveries, notification logs, push tokens, audit chunks, api keys …) is written
// again under a new app id, with `insertMany` (500 documents a command, the store's cheapest write).
// No document shape is written here: each copy is a service's own document with the app ids (and, where
// an `_id` does not contain the app id, the `_id`) changed. Two kinds of copy:
//  - full: every document of the apps, one whole copy at a time, until the stack's database files
//    (write-ahead logs included) hold the target (default 1 GiB);
//  - light: only the collections where an app holds ≤ 20 documents and ≤ 16 KiB (its configuration: the
//    app, its keys, webhooks, providers, rules, settings), for many more apps (a platform holds many
//    small tenants).
// Left out: publish journals (the outbox trims them once published; a copy would be published again)
// and documents that name no app (consumer positions, dedupe marks): the build prints which
// collections those are, so what was not aged is visible.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, ObjectId } from 'mongodb';
import { processCpuMs } from './processCpu.mjs';

/** Documents a command; light copies take the collections where an app holds at most this many documents and bytes. */
const BATCH = 500;
const LIGHT_MAX_DOCUMENTS = 20;
const LIGHT_MAX_BYTES = 16 * 1024;
/** A bound on the full copies, should the files not grow (a FerretDB this run did not start). */
const MAX_FULL_COPIES = 500;

/**
 * The SQLite files of the stack's own databases (`chat_<service>_<suffix>`) and their bytes, write-ahead
 * logs included (right after a run most of what it wrote may still be there).
 */
export function databaseBytes(mongoUrl, databaseSuffix) {
  const dir = join(fileURLToPath(new URL('..', import.meta.url)), '.infra', 'ferretdb', `data-${new URL(mongoUrl).port}`);
  if (!existsSync(dir)) return { dir, bytes: NaN };
  let bytes = 0;
  for (const name of readdirSync(dir)) if (name.startsWith('chat_') && /\.sqlite(-wal)?$/.test(name) && name.includes(`_${databaseSuffix}.sqlite`)) bytes += statSync(join(dir, name)).size;
  return { dir, bytes };
}

/** Whether any string inside `value` contains one of `needles`. */
function mentions(value, needles) {
  if (typeof value === 'string') return needles.some((n) => value.includes(n));
  if (Array.isArray(value)) return value.some((v) => mentions(v, needles));
  if (isPlain(value)) return Object.values(value).some((v) => mentions(v, needles));
  return false;
}

function isPlain(value) {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** A deep copy with every string rewritten; BSON values (dates, ObjectIds, longs, binaries) kept as they are. */
function rewriteStrings(value, rewrite) {
  if (typeof value === 'string') return rewrite(value);
  if (Array.isArray(value)) return value.map((v) => rewriteStrings(v, rewrite));
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteStrings(v, rewrite)]));
  return value;
}

/** The copy of `doc` for copy number `n`; null when its `_id` cannot be made unique (numbers, compound ids). */
function copyOf(doc, rewrite, n) {
  const copy = rewriteStrings(doc, rewrite);
  if (copy._id instanceof ObjectId) copy._id = new ObjectId();
  else if (typeof copy._id === 'string') {
    if (copy._id === doc._id) copy._id = `${doc._id}~aged${n}`;
  } else if (JSON.stringify(copy._id) === JSON.stringify(doc._id)) return null;
  return copy;
}

/**
 * @param {object} options
 * @param {string} options.mongoUrl
 * @param {string} options.databaseSuffix
 * @param {string[]} options.templateApps  the app ids whose documents are copied
 * @param {number} options.targetBytes  full copies are made until the databases' files hold this much
 * @param {number} options.lightApps  light copies (configuration only)
 * @param {(line: string) => void} [options.log]
 */
export async function buildAgedHistory({ mongoUrl, databaseSuffix, templateApps, targetBytes, lightApps, log = () => {} }) {
  const started = performance.now();
  const before = databaseBytes(mongoUrl, databaseSuffix).bytes;
  const mongo = new MongoClient(mongoUrl);
  const notAged = [];
  let written = 0;
  let duplicates = 0;
  let skipped = 0;
  /** Per collection: the template apps' documents there, their JSON bytes, and whether light copies take it. */
  const perApp = new Map();
  try {
    const databases = (await mongo.db('admin').admin().listDatabases()).databases.map((d) => d.name).filter((name) => name.endsWith(`_${databaseSuffix}`));
    const collections = [];
    for (const database of databases) {
      for (const { name } of await mongo.db(database).listCollections({}, { nameOnly: true }).toArray()) {
        if (!name.endsWith('_journal')) collections.push({ database, name, label: `${database.replace(`_${databaseSuffix}`, '')}.${name}` });
      }
    }
    // 1. The template apps' documents, per collection (a scan each; the fresh run leaves a few MiB).
    const templates = [];
    for (const c of collections) {
      const template = [];
      let others = 0;
      for await (const doc of mongo.db(c.database).collection(c.name).find({})) {
        if (mentions(doc, templateApps)) template.push(doc);
        else others += 1;
      }
      if (others > 0) notAged.push(`${c.label} (${others})`);
      if (template.length === 0) continue;
      const held = templateApps.map((app) => template.filter((doc) => mentions(doc, [app])));
      const light = held.every((docs) => docs.length <= LIGHT_MAX_DOCUMENTS && Buffer.byteLength(JSON.stringify(docs)) <= LIGHT_MAX_BYTES);
      perApp.set(c.label, { documents: template.length, bytes: Buffer.byteLength(JSON.stringify(template)), light });
      templates.push({ collection: mongo.db(c.database).collection(c.name), template, light });
    }
    const insert = async (collection, docs) => {
      for (let i = 0; i < docs.length; i += BATCH) {
        const batch = docs.slice(i, i + BATCH);
        try {
          const r = await collection.insertMany(batch, { ordered: false });
          written += r.insertedCount;
        } catch (error) {
          // A copy that meets a unique index beside `_id` (a key's hash, a token) is left out.
          if (error?.code !== 11000 && !error?.writeErrors) throw error;
          const failed = Array.isArray(error.writeErrors) ? error.writeErrors.length : 1;
          written += batch.length - failed;
          duplicates += failed;
        }
      }
    };
    const copies = (template, n) => {
      const ids = new Map(templateApps.map((app) => [app, appIdFor(n, app)]));
      const rewrite = (s) => {
        let out = s;
        for (const [from, to] of ids) if (out.includes(from)) out = out.replaceAll(from, to);
        return out;
      };
      const out = [];
      for (const doc of template) {
        const copy = copyOf(doc, rewrite, n);
        if (copy === null) skipped += 1;
        else out.push(copy);
      }
      return out;
    };
    // 2. Full copies, one whole copy at a time, until the files hold the target: what the store keeps
    // per document (its JSON with type annotations, the indexes) is several times the JSON, so the
    // files are measured, not estimated.
    let heavyCopies = 0;
    while (databaseBytes(mongoUrl, databaseSuffix).bytes < targetBytes && heavyCopies < MAX_FULL_COPIES) {
      for (const { collection, template } of templates) await insert(collection, copies(template, heavyCopies));
      heavyCopies += 1;
      if (heavyCopies % 10 === 0) log(`aged history: ${heavyCopies} full copies, ${written} documents, ${(databaseBytes(mongoUrl, databaseSuffix).bytes / 2 ** 20).toFixed(0)} MiB (${fmtSeconds(performance.now() - started)})`);
    }
    // 3. Light copies: the configuration collections only, many apps per command.
    for (const { collection, template, light } of templates) {
      if (!light) continue;
      const docs = [];
      for (let n = heavyCopies; n < heavyCopies + lightApps; n++) docs.push(...copies(template, n));
      await insert(collection, docs);
    }
    log(`aged history: ${heavyCopies} full copies and ${lightApps} light ones, ${written} documents (${fmtSeconds(performance.now() - started)})`);
    const after = databaseBytes(mongoUrl, databaseSuffix).bytes;
    return { heavyCopies, lightApps, written, duplicates, skipped, notAged, perApp, bytesBefore: before, bytesAfter: after, seconds: (performance.now() - started) / 1000 };
  } finally {
    await mongo.close();
  }
}

/** The same new app id for a template app and copy number in every collection, so a copy's documents belong together. */
const appIds = new Map();
function appIdFor(n, app) {
  const key = `${n}/${app}`;
  let id = appIds.get(key);
  if (!id) appIds.set(key, (id = randomBytes(8).toString('hex')));
  return id;
}

function fmtSeconds(ms) {
  return `${(ms / 1000).toFixed(0)} s`;
}

/** The first number of a summary cell (`1,234/s, 0 err` → 1234), NaN for none. */
function firstNumber(cell) {
  const match = /-?[\d,]+(?:\.\d+)?/.exec(cell ?? '');
  return match ? Number(match[0].replaceAll(',', '')) : NaN;
}

/**
 * The fresh and the aged summary side by side with aged ÷ fresh per figure (goal: within 1.2 ×; for a
 * rate, below 1 is the worse side, so the check is 1/1.2 ≤ ratio ≤ 1.2 for every figure).
 * `fresh` and `aged` are printSummary's rows: [figure, off, on, goal].
 */
/**
 * What a long-running store's connections have read, after a restart (ADR 0164): `connections` cursors at once
 * over each aged database larger than `bytes`, each reading `bytes` of documents of its largest collections
 * (`find` in natural order). SQLite's page cache keeps per connection a hash table sized for the most pages it
 * ever held, and a discard of the cache walks all of it: a runner that has served an aged store for a while
 * (a rebuild's scan, a big page of history, the aging copy itself in ADR 0161's runs) has connections of that
 * size, a restarted one's start small. The benches restart the store between rounds to alternate its settings
 * (BENCH_STORE_ENV), so they call this after each restart once the aged databases exist. Prints what it read.
 */
export async function warmAgedStore(mongoUrl, databaseSuffix, { connections = 4, bytes = 80 * 2 ** 20 } = {}) {
  const started = performance.now();
  const mongo = new MongoClient(mongoUrl, { maxPoolSize: connections + 2 });
  let documents = 0;
  try {
    const names = (await mongo.db('admin').admin().listDatabases()).databases.map((d) => d.name).filter((name) => name.endsWith(`_${databaseSuffix}`));
    for (const name of names) {
      const db = mongo.db(name);
      const stats = await Promise.all((await db.listCollections({}, { nameOnly: true }).toArray()).map(async ({ name: c }) => ({ name: c, ...(await db.command({ collStats: c })) })));
      const largest = stats.filter((c) => c.size > 0).sort((a, b) => b.size - a.size);
      if (largest.reduce((sum, c) => sum + c.size, 0) < bytes) continue;
      const reads = Array.from({ length: connections }, async (_, i) => {
        const collection = largest[i % Math.min(2, largest.length)];
        const cursor = db.collection(collection.name).find({}, { batchSize: 2000, limit: Math.ceil(bytes / Math.max(1, collection.avgObjSize)) });
        while (await cursor.next()) documents++;
      });
      await Promise.all(reads);
    }
  } finally {
    await mongo.close();
  }
  console.log(`  the aged databases' connections warmed: ${documents} documents read by ${connections} cursors a database in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Waits until the store's process has been quiet (under `quietShare` of a core) for two windows in a row,
 * at most `maxS`: a copy of a gigabyte leaves SQLite checkpointing its WAL for a while after the last
 * insert answered, and a phase measured meanwhile measures that. Returns the seconds waited and whether
 * the store settled.
 */
export async function waitForStoreToSettle(storePid, { windowMs = 2_000, quietShare = 0.05, maxS = 180 } = {}) {
  const started = performance.now();
  if (storePid === undefined) return { seconds: 0, settled: false, dirtyMb: 0, syncS: 0 };
  // The copy leaves its gigabyte in the kernel's dirty pages: until they are on disk, every fsync of
  // the store (its checkpoints) waits behind that writeback, and the aged phases would measure the copy's
  // flush, not a store with history (one built over months never has it). `sync` waits for it.
  const dirtyMb = kernelDirtyMb();
  const syncStarted = performance.now();
  spawnSync('sync');
  const syncS = (performance.now() - syncStarted) / 1_000;
  const settled = await storeCpuQuiet(storePid, { windowMs, quietShare, maxS, started });
  return { ...settled, dirtyMb, syncS };
}

/** Dirty and writeback pages of the whole machine, MB (/proc/meminfo). */
function kernelDirtyMb() {
  const info = readFileSync('/proc/meminfo', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? 0);
  return (kb('Dirty') + kb('Writeback')) / 1_024;
}

async function storeCpuQuiet(storePid, { windowMs, quietShare, maxS, started }) {
  let quietWindows = 0;
  while (performance.now() - started < maxS * 1_000) {
    const from = processCpuMs(storePid);
    await sleep(windowMs);
    const share = (processCpuMs(storePid) - from) / windowMs;
    quietWindows = share < quietShare ? quietWindows + 1 : 0;
    if (quietWindows >= 2) return { seconds: (performance.now() - started) / 1_000, settled: true };
  }
  return { seconds: (performance.now() - started) / 1_000, settled: false };
}

export function printAgedComparison(fresh, aged) {
  const rows = [];
  for (const row of fresh) {
    const other = aged.find((r) => r[0] === row[0]);
    if (!other) continue;
    const cells = [];
    for (const i of [1, 2]) {
      const f = firstNumber(row[i]);
      const a = firstNumber(other[i]);
      const ratio = a / f;
      const verdict = Number.isFinite(ratio) && f > 0 ? (ratio <= 1.2 && ratio >= 1 / 1.2 ? '' : ' OUT') : '';
      cells.push(row[i] === '—' ? '—' : `${strip(row[i])} | ${strip(other[i])} | ${Number.isFinite(ratio) && f > 0 ? ratio.toFixed(2) : 'n/a'}${verdict}`);
    }
    rows.push([row[0], ...cells]);
  }
  const header = ['figure', 'off: fresh | aged | aged÷fresh', 'on: fresh | aged | aged÷fresh'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  console.log(`\nAged ÷ fresh (goal: every figure within 1.2 ×; OUT: outside 1/1.2 … 1.2)`);
  console.log(`  ${header.map((c, i) => c.padEnd(widths[i])).join('  ')}`);
  for (const r of rows) console.log(`  ${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}`);
}

function strip(cell) {
  return cell.replace(/ (met|MISSED)$/, '');
}

/**
 * Which collections cost more per command on aged data: the runner's tally of both runs, per command
 * and collection, ms per command fresh and aged (a read that scans grows with the collection; an
 * `{_id}` read or an insert does not).
 */
export function printTallyGrowth(freshResults, agedResults) {
  const perCommand = (results) => {
    const rows = new Map();
    for (const r of Object.values(results)) {
      for (const row of r.tally?.rows ?? []) {
        const key = `${row.kind} ${row.command} ${row.collection.replace(/^([a-z]+)\./, '$1.')}`;
        const entry = rows.get(key) ?? { commands: 0, statements: 0, busyMs: 0 };
        entry.commands += row.commands;
        entry.statements += row.statements;
        entry.busyMs += row.busyMs;
        rows.set(key, entry);
      }
    }
    return rows;
  };
  const fresh = perCommand(freshResults);
  const aged = perCommand(agedResults);
  const lines = [];
  for (const [key, a] of aged) {
    const f = fresh.get(key);
    if (!f || f.commands === 0 || a.commands === 0) continue;
    const freshPer = f.busyMs / f.commands;
    const agedPer = a.busyMs / a.commands;
    lines.push({ key, freshPer, agedPer, growth: agedPer / freshPer, agedBusy: a.busyMs, commands: a.commands, statements: a.statements });
  }
  lines.sort((x, y) => y.agedBusy * Math.max(y.growth - 1, 0) - x.agedBusy * Math.max(x.growth - 1, 0));
  console.log(`\nStore cost per command, fresh → aged (the runner's tally, both phases; sorted by the time the growth added)`);
  for (const l of lines.slice(0, 20)) {
    console.log(
      `  ${l.key.padEnd(62)} ${l.freshPer.toFixed(3).padStart(8)} → ${l.agedPer.toFixed(3).padStart(8)} ms/cmd  ×${l.growth.toFixed(2).padStart(6)}  ` +
        `(${l.commands} cmds, ${l.statements} stmts, ${l.agedBusy.toFixed(0)} ms aged)`,
    );
  }
}
