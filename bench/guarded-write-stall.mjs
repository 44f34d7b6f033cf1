// node bench/guarded-write-stall.mjs — what a read model's fold (a guarded write of several whole
// documents, packages/mongo MongoDocumentStore.writeGuarded) makes a send's store write wait for (ADR 0094).
// The runner's FerretDB lets one write command at a time into the store (ADR 0046): a send's write that
// arrives while a fold's command runs waits for it to end. On the devstack's FerretDB (MONGO_PORT), each
// round in a database of its own, BENCH_WRITES documents of BENCH_DOC_BYTES (default 8 of 4,000 B: a
// conversations timeline fold, the longest update commands of the bench stack) are replaced under their
// revision guard, while a probe writes one small document after another (one in flight, like one step of
// a send). Two ways alternate per round: "one command" (main's store before this ADR: up to 50
// statements a command) and "capped" (this worktree's store: GUARDED_WRITES_PER_COMMAND a command).
// Prints per way, over BENCH_ROUNDS rounds (default 20): the fold's commands, its longest command and its
// whole time (at the client), and the probe writes that overlapped it: mean, p99, worst per round
// (median and max), beside the probe's p50 with no fold running.
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';
import { MongoClient } from 'mongodb';
import { percentile } from './percentile.mjs';
import { startProbeWrites } from './probeWrites.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WRITES = Number(process.env.BENCH_WRITES ?? 8);
const DOC_BYTES = Number(process.env.BENCH_DOC_BYTES ?? 4_000);

const infra = await startInfrastructure({ parts: ['ferretdb'], log: () => undefined });
const { MongoDocumentStore, GUARDED_WRITES_PER_COMMAND } = await import(pathToFileURL(new URL('../packages/mongo/dist/mongoDocumentStore.js', import.meta.url).pathname).href);
const client = new MongoClient(infra.mongoUrl);
await client.connect();

const WAYS = ['one command', 'capped'];
const tally = WAYS.map(() => ({ commands: [], longest: [], fold: [], during: [], worst: [], idle: [] }));
const run = Date.now().toString(36);
const documentOf = (id, rev) => ({ _id: id, _rev: rev, _positions: { p0: rev }, text: 'x'.repeat(DOC_BYTES) });

async function round(way, r) {
  const db = client.db(`guarded_${run}_${way}_${r}`);
  const docs = db.collection('docs');
  const probe = db.collection('probe');
  const ids = Array.from({ length: WRITES }, (_, i) => `c${i}`);
  await docs.insertMany(ids.map((id) => documentOf(id, 1)));
  await probe.insertOne({ _id: -1 });
  const store = new MongoDocumentStore(db, 'docs');
  const commandTimes = [];
  // Each command of the fold timed at the client: the store's own chunks, or main's one command.
  const collection = db.collection('docs');
  const bulkWrite = collection.bulkWrite.bind(collection);
  const timed = async (operations, options) => {
    const started = performance.now();
    const result = await bulkWrite(operations, options);
    commandTimes.push(performance.now() - started);
    return result;
  };
  const writes = ids.map((id) => ({ kind: 'replace', expectedRev: 1, document: documentOf(id, 2) }));

  const prober = startProbeWrites(probe);
  await sleep(200);
  const foldStart = performance.now();
  if (WAYS[way] === 'capped') {
    store.collection.bulkWrite = timed;
    const lost = await store.writeGuarded(writes);
    if (lost.length > 0) throw new Error(`lost ${lost.length}`);
  } else {
    const result = await timed(writes.map((w) => ({ replaceOne: { filter: { _id: w.document._id, _rev: 1 }, replacement: w.document } })), { ordered: false });
    if (result.matchedCount !== WRITES) throw new Error(`matched ${result.matchedCount}`);
  }
  const foldEnd = performance.now();
  await sleep(200);
  const probed = await prober.stop();
  await db.dropDatabase();

  const overlapped = probed.during(foldStart, foldEnd);
  const idle = probed.away(foldStart, foldEnd);
  const t = tally[way];
  t.commands.push(commandTimes.length);
  t.longest.push(Math.max(...commandTimes));
  t.fold.push(foldEnd - foldStart);
  t.during.push(...overlapped);
  if (overlapped.length > 0) t.worst.push(overlapped.at(-1));
  t.idle.push(percentile(idle, 50));
}

for (let r = 0; r < ROUNDS; r++) {
  // Alternate which way goes first, so neither always follows the other's clean-up.
  for (const way of r % 2 === 0 ? [0, 1] : [1, 0]) await round(way, r);
}
await client.close();
await infra.stop();

const med = (values) => percentile([...values].sort((a, b) => a - b), 50);
const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const load = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(`guarded write stall: ${WRITES} replaces of ${DOC_BYTES} B, capped at ${GUARDED_WRITES_PER_COMMAND} a command, ${ROUNDS} rounds per way, load ${load}; ms, medians over rounds unless said`);
console.log(`${'way'.padEnd(12)} ${'cmds'.padStart(5)} ${'longest'.padStart(8)} ${'fold'.padStart(7)} ${'probe idle p50'.padStart(15)} ${'overlapped mean'.padStart(16)} ${'p99'.padStart(7)} ${'worst (med/max)'.padStart(16)}  n`);
WAYS.forEach((way, w) => {
  const t = tally[w];
  const during = [...t.during].sort((x, y) => x - y);
  console.log(
    `${way.padEnd(12)} ${fmt(med(t.commands)).padStart(5)} ${fmt(med(t.longest)).padStart(8)} ${fmt(med(t.fold)).padStart(7)} ${fmt(med(t.idle)).padStart(15)} ${fmt(during.reduce((sum, v) => sum + v, 0) / during.length).padStart(16)} ${fmt(percentile(during, 99)).padStart(7)} ${`${fmt(med(t.worst))}/${fmt(Math.max(...t.worst))}`.padStart(16)}  ${during.length}`,
  );
});
process.exit(0);
