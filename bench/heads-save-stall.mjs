// node bench/heads-save-stall.mjs [other eventsourcing dist] — what a background save of stream heads
// (packages/eventsourcing StreamHeads, every 5 s in each event-sourced service) makes a send's store
// write wait for (ADR 0091). The runner's FerretDB lets one write command at a time into the store
// (ADR 0046), so a send's write that arrives while the save's command runs waits for it to end.
// On the devstack's FerretDB (MONGO_PORT): the real MongoCommitStore (this worktree's packages/mongo)
// under StreamHeads of this worktree's build and of another (default: /work/main's), taken in turn,
// each round in a database of its own. A round remembers BENCH_HEADS changed heads (default 50, about
// the conversations a bench stack writes to in 5 s) with a snapshot of BENCH_SNAPSHOT_BYTES (300), and
// a probe writes one small document after another (one in flight, like one step of a send) while the
// save runs. Prints per build, over BENCH_ROUNDS rounds (default 10): the save's calls of
// CommitStore.saveHeads and its longest call (timed at the client; main's one call sends a command per
// 50 heads, ADR 0011's cap), and the probe writes that overlapped the save: their mean and p99 over
// all rounds, their worst per round (median and max), beside the probe's p50 with no save running.
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';
import { MongoClient } from 'mongodb';
import { percentile } from './percentile.mjs';
import { startProbeWrites } from './probeWrites.mjs';

const builds = [new URL('../packages/eventsourcing/dist', import.meta.url).pathname, process.argv[2] ?? '/work/main/packages/eventsourcing/dist'];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const HEADS = Number(process.env.BENCH_HEADS ?? 50);
const SNAPSHOT_BYTES = Number(process.env.BENCH_SNAPSHOT_BYTES ?? 300);

const infra = await startInfrastructure({ parts: ['ferretdb'], log: () => undefined });
const { MongoCommitStore } = await import(pathToFileURL(new URL('../packages/mongo/dist/index.js', import.meta.url).pathname).href);
const client = new MongoClient(infra.mongoUrl);
await client.connect();
const streamHeadsOf = await Promise.all(builds.map(async (dist) => (await import(pathToFileURL(`${dist}/streamHeads.js`).href)).StreamHeads));

const tally = builds.map(() => ({ commands: [], longest: [], save: [], during: [], worst: [], idle: [] }));
const run = Date.now().toString(36);

async function round(buildIndex, r) {
  const db = client.db(`heads_${run}_${buildIndex}_${r}`);
  const store = new MongoCommitStore(db);
  const probe = db.collection('probe');
  await probe.insertOne({ _id: -1 });
  await db.collection('commits_heads').insertOne({ _id: 'warm', version: 1 });
  const commandTimes = [];
  const saveHeads = store.saveHeads.bind(store);
  store.saveHeads = async (heads) => {
    const started = performance.now();
    await saveHeads(heads);
    commandTimes.push(performance.now() - started);
  };
  const heads = new streamHeadsOf[buildIndex](store);
  const state = { lastSeq: 10, participants: ['a', 'b'], pad: 'x'.repeat(Math.max(0, SNAPSHOT_BYTES - 60)) };
  for (let i = 0; i < HEADS; i++) heads.remember(`messages:app1:c${i}_r${r}`, { version: 10 + r, snapshot: { version: 1, state } }, true);

  const prober = startProbeWrites(probe);
  await sleep(300);
  const saveStart = performance.now();
  await heads.save();
  const saveEnd = performance.now();
  await sleep(300);
  const probed = await prober.stop();
  await db.dropDatabase();

  const overlapped = probed.during(saveStart, saveEnd);
  const idle = probed.away(saveStart, saveEnd);
  const t = tally[buildIndex];
  t.commands.push(commandTimes.length);
  t.longest.push(Math.max(...commandTimes));
  t.save.push(saveEnd - saveStart);
  t.during.push(...overlapped);
  t.worst.push(overlapped.at(-1) ?? NaN);
  t.idle.push(percentile(idle, 50));
}

for (let r = 0; r < ROUNDS; r++) {
  // Alternate which build goes first, so neither always follows the other's clean-up.
  const order = r % 2 === 0 ? [0, 1] : [1, 0];
  for (const b of order) await round(b, r);
}
await client.close();
await infra.stop();

const med = (values) => percentile([...values].sort((a, b) => a - b), 50);
const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
console.log(`heads save stall: ${HEADS} changed heads, snapshot ${SNAPSHOT_BYTES} B, ${ROUNDS} rounds per build; ms, medians over rounds unless said`);
console.log(`${'build'.padEnd(48)} ${'calls'.padStart(5)} ${'longest'.padStart(8)} ${'save'.padStart(7)} ${'probe idle p50'.padStart(15)} ${'overlapped mean'.padStart(16)} ${'p99'.padStart(7)} ${'worst (med/max)'.padStart(16)}  n`);
builds.forEach((dist, b) => {
  const t = tally[b];
  const during = [...t.during].sort((x, y) => x - y);
  console.log(
    `${dist.slice(-48).padEnd(48)} ${fmt(med(t.commands)).padStart(5)} ${fmt(med(t.longest)).padStart(8)} ${fmt(med(t.save)).padStart(7)} ${fmt(med(t.idle)).padStart(15)} ${fmt(during.reduce((sum, v) => sum + v, 0) / during.length).padStart(16)} ${fmt(percentile(during, 99)).padStart(7)} ${`${fmt(med(t.worst))}/${fmt(Math.max(...t.worst))}`.padStart(16)}  ${during.length}`,
  );
});
process.exit(0);
