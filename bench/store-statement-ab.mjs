// Two FerretDB runner builds, already running, under the write shapes of a conversations run (ADR 0098):
// insert commands of a run's documents (per message a ~950 B timeline revision, two ~100 B inbox revisions
// and a ~570 B message copy), a guarded replace of a ~3 KB head, and a single-document insert, sent to
// each runner in turn, round after round, so that a loaded machine moves both alike. Prints per runner
// its CPU per document and per command (/proc) and the commands' wall time; checks that a duplicate key
// is still reported per document (11000) and that a lost guarded replace matches nothing. Given a runner's
// log (started with --stats-interval), also the write lock it held per command of each shape (its tally).
//
//   AB_RUNNERS=main=mongodb://127.0.0.1:27597/@<pid>[@<log>],new=mongodb://127.0.0.1:27517/@<pid>[@<log>] node bench/store-statement-ab.mjs
// Knobs: AB_ROUNDS (8), AB_COMMANDS per round and shape (150), AB_MESSAGES per insert command (7).
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { processCpuMs } from './processCpu.mjs';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const COMMANDS = Number(process.env.AB_COMMANDS ?? 150);
const MESSAGES = Number(process.env.AB_MESSAGES ?? 7);
if (!process.env.AB_RUNNERS) throw new Error('AB_RUNNERS=name=<mongo url>@<pid>,… is required');
const runners = await Promise.all(
  process.env.AB_RUNNERS.split(',').map(async (entry) => {
    const [name, rest] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
    const [url, pid, log] = rest.split('@');
    const client = await new MongoClient(url, { maxPoolSize: 4 }).connect();
    const db = client.db(`ab_${Date.now().toString(36)}`);
    return { name, client, db, pid: Number(pid), log, logFrom: log ? statSync(log).size : 0, shapes: new Map() };
  }),
);

const text = (n) => 'x'.repeat(n);
let serial = 0;
/** One run's documents for `MESSAGES` one-on-one messages, keyed as the appends collection keys them. */
function runDocuments() {
  return Array.from({ length: MESSAGES }, () => {
    serial += 1;
    return [
      { _id: `app:conv-${serial % 50}~${serial}`, d: text(930) },
      { _id: `~iapp:a-${serial % 50}~${serial}`, d: text(80) },
      { _id: `~iapp:b-${serial % 50}~${serial}`, d: text(80) },
      { _id: `~capp:${serial}`, appId: 'app', conversationId: `conv-${serial % 50}`, message: text(420), _positions: { [`s${serial}`]: 1 }, _rev: 1 },
    ];
  }).flat();
}

const shapes = {
  async insertRun(db) {
    const documents = runDocuments();
    await db.collection('appends').insertMany(documents, { ordered: false });
    return documents.length;
  },
  async replaceHead(db, i) {
    const heads = db.collection('heads');
    const id = `head-${i % 50}`;
    const current = await heads.findOne({ _id: id });
    if (!current) {
      await heads.insertOne({ _id: id, _rev: 1, body: text(3000) });
      return 1;
    }
    const result = await heads.replaceOne({ _id: id, _rev: current._rev }, { _rev: current._rev + 1, body: text(3000) });
    if (result.modifiedCount !== 1) throw new Error(`guarded replace of ${id} missed`);
    return 1;
  },
  async insertOne(db) {
    serial += 1;
    await db.collection('singles').insertOne({ _id: `one-${serial}`, body: text(400) });
    return 1;
  },
};

for (let round = 0; round < ROUNDS; round++) {
  for (const runner of round % 2 ? [...runners].reverse() : runners) {
    for (const [shape, run] of Object.entries(shapes)) {
      const cpu = processCpuMs(runner.pid);
      const started = performance.now();
      let documents = 0;
      for (let i = 0; i < COMMANDS; i++) documents += await run(runner.db, i);
      const row = runner.shapes.get(shape) ?? { cpu: 0, ms: 0, documents: 0, commands: 0 };
      row.ms += performance.now() - started;
      row.cpu += processCpuMs(runner.pid) - cpu;
      row.documents += documents;
      row.commands += COMMANDS;
      runner.shapes.set(shape, row);
    }
  }
}

/** Write-lock ms by collection of the runner's database, from its tally since the run began. */
function lockByCollection(runner) {
  const locks = new Map();
  if (!runner.log) return locks;
  for (const line of readFileSync(runner.log).subarray(runner.logFrom).toString('utf8').split('\n')) {
    const match = /^\s+write\s+\S+\s+(\S+)\s+\d+ cmds\s+\d+ stmts\s+([\d.]+) ms busy/.exec(line);
    if (!match || !match[1].startsWith(`${runner.db.databaseName}.`)) continue;
    const collection = match[1].slice(runner.db.databaseName.length + 1);
    locks.set(collection, (locks.get(collection) ?? 0) + Number(match[2]));
  }
  return locks;
}
const SHAPE_COLLECTION = { insertRun: 'appends', replaceHead: 'heads', insertOne: 'singles' };
if (runners.some((runner) => runner.log)) await sleep(2_500); // the tallies' next report

// The guards, on every runner: a duplicate in an unordered insert is reported for that document only,
// and a replace guarded by a stale revision matches nothing.
for (const runner of runners) {
  const appends = runner.db.collection('appends');
  await appends.insertOne({ _id: 'dup', d: 'first' });
  const answer = await appends.insertMany([{ _id: 'fresh-1' }, { _id: 'dup', d: 'second' }, { _id: 'fresh-2' }], { ordered: false }).catch((error) => error);
  const codes = (answer.writeErrors ?? []).map((e) => `${e.index}:${e.code}`).join(',');
  const kept = (await appends.findOne({ _id: 'dup' })).d;
  const fresh = await appends.countDocuments({ _id: { $in: ['fresh-1', 'fresh-2'] } });
  const stale = await runner.db.collection('heads').replaceOne({ _id: 'head-0', _rev: 0 }, { _rev: 1 });
  const ok = codes === '1:11000' && kept === 'first' && fresh === 2 && stale.matchedCount === 0;
  console.log(`== ${runner.name}: guards ${ok ? 'kept' : `BROKEN (${codes}, ${kept}, ${fresh}, ${stale.matchedCount})`}`);
  const locks = lockByCollection(runner);
  for (const [shape, row] of runner.shapes) {
    const lock = locks.get(SHAPE_COLLECTION[shape]);
    console.log(
      `  ${shape.padEnd(12)} ${(row.cpu / row.documents).toFixed(3)} ms CPU a document, ${(row.cpu / row.commands).toFixed(3)} ms a command, ` +
        `${(row.ms / row.commands).toFixed(2)} ms wall a command${lock === undefined ? '' : `, ${(lock / row.commands).toFixed(3)} ms write lock a command (tally)`} (${row.commands} commands, ${row.documents} documents)`,
    );
  }
  await runner.db.dropDatabase();
  await runner.client.close();
  if (!ok) process.exitCode = 1;
}
