// The store's cost of the services' write shapes, without the rest of the stack: several databases
// written at once by concurrent clients (insert, guarded replace, $inc upsert, findAndModify sequence,
// delete, small insertMany), as the services write on a message. Prints the FerretDB runner's CPU per
// operation (/proc) and the run's wall time, and checks that concurrent $inc on one document in each
// database lost nothing (single-document atomicity, ADR 0005/0046).
//
//   MONGO_URL=mongodb://127.0.0.1:27117/ STORE_PID=<runner pid> node bench/store-write-mix.mjs
// Knobs: MIX_DATABASES (4), MIX_CLIENTS per database (6), MIX_ROUNDS per client (150).
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';

const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27117/';
const pid = Number(process.env.STORE_PID);
const databases = Number(process.env.MIX_DATABASES ?? 4);
const clients = Number(process.env.MIX_CLIENTS ?? 6);
const rounds = Number(process.env.MIX_ROUNDS ?? 150);
const run = `mix${Date.now().toString(36)}`;

function cpuMs() {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

const client = new MongoClient(url, { maxPoolSize: databases * clients + 4 });
await client.connect();
const body = 'x'.repeat(400);
let operations = 0;

async function worker(db, w) {
  const docs = db.collection('docs');
  const counters = db.collection('counters');
  const sequences = db.collection('sequences');
  for (let i = 0; i < rounds; i += 1) {
    const id = `${w}-${i}`;
    await docs.insertOne({ _id: id, _rev: 1, body, n: i });
    const replaced = await docs.replaceOne({ _id: id, _rev: 1 }, { _rev: 2, body, n: i + 1 });
    if (replaced.modifiedCount !== 1) throw new Error(`guarded replace of ${id} missed`);
    await counters.updateOne({ _id: 'shared' }, { $inc: { n: 1 } }, { upsert: true });
    await sequences.findOneAndUpdate({ _id: 'seq' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (i % 5 === 0) await docs.insertMany([0, 1, 2, 3].map((k) => ({ _id: `${id}-m${k}`, body })));
    if (i % 2 === 0) await docs.deleteOne({ _id: id });
    operations += i % 5 === 0 ? 6 + (i % 2 === 0 ? 1 : 0) : 4 + (i % 2 === 0 ? 1 : 0);
  }
}

const dbs = Array.from({ length: databases }, (_, d) => client.db(`${run}_${d}`));
// Create the collections first: their creation is not what is measured.
for (const db of dbs) for (const name of ['docs', 'counters', 'sequences']) await db.collection(name).insertOne({ _id: 'warm' });
const cpuBefore = cpuMs();
const started = performance.now();
await Promise.all(dbs.flatMap((db, d) => Array.from({ length: clients }, (_, w) => worker(db, `${d}.${w}`))));
const wallMs = performance.now() - started;
const cpu = cpuMs() - cpuBefore;
let lost = 0;
for (const db of dbs) {
  const shared = await db.collection('counters').findOne({ _id: 'shared' });
  const seq = await db.collection('sequences').findOne({ _id: 'seq' });
  lost += clients * rounds - shared.n + (clients * rounds - seq.seq);
}
for (const db of dbs) await db.dropDatabase();
await client.close();
console.log(
  `${operations} operations in ${databases} databases × ${clients} clients: ${(wallMs / 1000).toFixed(2)} s wall, ` +
    `${((operations / wallMs) * 1000).toFixed(0)} ops/s; runner CPU ${(cpu / operations).toFixed(3)} ms per operation; lost increments ${lost}`,
);
if (lost !== 0) process.exit(1);
