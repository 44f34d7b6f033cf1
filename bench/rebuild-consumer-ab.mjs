// The rebuild benchmark (bench/projection-rebuild.mjs) of two build roots in one run, over one Kafka and
// one FerretDB, alternated round by round (ADR 0114): each root's own consumer, contracts, projection
// runtime and read models rebuild a fresh topic, in a child process of that root's (two roots' native
// addons cannot load in one process), so a loaded machine moves both alike. Prints per round
// and root the rebuild's CPU ms per event by process (this process is the consumer), the floor's when
// the root's bench measures it, then the medians and the ratio B/A. Each row also gives the rebuild
// beside the floor of the same child (ADR 0147): its events/s ÷ the floor's, the floor's CPU per event
// (all three processes) ÷ its own, its store commands and the load average when the child ended.
//   node bench/rebuild-consumer-ab.mjs <root A> <root B> [events per round]     (BENCH_ROUNDS, default 2)
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';

const [rootA, rootB, eventsArg] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: node bench/rebuild-consumer-ab.mjs <root A> <root B> [events per round]');
const events = Number(eventsArg ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const here = fileURLToPath(new URL('..', import.meta.url));
const roots = { A: resolve(rootA), B: resolve(rootB) };

// Each root's bench finds FerretDB's and Kafka's pids in its own `.infra/run`: the ones started here.
const runDir = join(here, '.infra', 'run');
const copied = [];
const infra = await startInfrastructure({ freshKafkaData: true });
const rows = [];
try {
  for (const root of Object.values(roots)) {
    const theirs = join(root, '.infra', 'run');
    if (theirs === runDir) continue;
    mkdirSync(theirs, { recursive: true });
    for (const file of readdirSync(runDir).filter((f) => f.endsWith('.pid'))) {
      // Overwritten: a file left by a run that did not finish names a process long gone.
      copyFileSync(join(runDir, file), join(theirs, file));
      copied.push(join(theirs, file));
    }
  }
  // The child runs the root's bench on this infrastructure and prints its result as the last line.
  const child = (root) => {
    const script =
      `const { benchProjectionRebuild } = await import(${JSON.stringify(pathToFileURL(join(root, 'bench', 'projection-rebuild.mjs')).href)});` +
      `const r = await benchProjectionRebuild({ events: ${events}, infra: { mongoUrl: ${JSON.stringify(infra.mongoUrl)}, kafkaBrokers: ${JSON.stringify(infra.kafkaBrokers)} } });` +
      `console.log(JSON.stringify(r));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(root, 'bench'), env: process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
    const lines = output.trim().split('\n');
    for (const line of lines.slice(0, -1)) if (!line.startsWith('{"level"')) console.log(`  ${line}`);
    return JSON.parse(lines[lines.length - 1]);
  };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['B', 'A'] : ['A', 'B']) {
      const r = child(roots[name]);
      const cpuSum = (cpu) => Object.values(cpu).reduce((sum, ms) => sum + (Number.isFinite(ms) ? ms : 0), 0);
      const row = {
        root: name,
        eventsPerSecond: r.eventsPerSecond,
        documents: r.documents,
        cpuPerEvent: r.cpuPerEvent,
        commands: r.commands,
        busy: r.busy,
        floor: r.floor && { eventsPerSecond: r.floor.eventsPerSecond, cpuPerEvent: r.floor.cpuPerEvent, machineBound: r.floor.machineBound, commands: r.floor.commands, busy: r.floor.busy },
        ofFloor: r.floor && { rate: r.eventsPerSecond / r.floor.eventsPerSecond, cpu: cpuSum(r.floor.cpuPerEvent) / cpuSum(r.cpuPerEvent) },
        loadavg: loadavg().map((l) => Number(l.toFixed(1))),
      };
      rows.push(row);
      console.log(`round ${round + 1} ${JSON.stringify(row)}`);
      if (r.documents !== events) process.exitCode = 1;
    }
  }
} finally {
  for (const file of copied) rmSync(file, { force: true });
  await infra.stop();
}
// A process /proc could not see is null in the child's JSON: left out of the medians.
const median = (values) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const medians = {};
for (const name of ['A', 'B']) {
  const mine = rows.filter((row) => row.root === name);
  medians[name] = Object.fromEntries(['projection', 'ferretdb', 'kafka'].map((p) => [p, median(mine.map((row) => row.cpuPerEvent[p]))]));
  console.log(
    `${name} (${roots[name]}): rebuild CPU ms/event ${Object.entries(medians[name]).map(([p, ms]) => `${p} ${ms.toFixed(3)}`).join(', ')}; ` +
      `${Math.round(median(mine.map((row) => row.eventsPerSecond)))} events/s`,
  );
  const floors = mine.filter((row) => row.floor);
  if (floors.length > 0) {
    console.log(
      `${name} floor: CPU ms/event ${['projection', 'ferretdb', 'kafka'].map((p) => `${p} ${median(floors.map((row) => row.floor.cpuPerEvent[p])).toFixed(3)}`).join(', ')}; ` +
        `${Math.round(median(floors.map((row) => row.floor.eventsPerSecond)))} events/s; machine bound ${Math.round(median(floors.map((row) => row.floor.machineBound)))} events/s`,
    );
    console.log(
      `${name} ÷ its floor (per round ${floors.map((row) => `${row.ofFloor.rate.toFixed(2)}/${row.ofFloor.cpu.toFixed(2)}`).join(' ')}): ` +
        `events/s median ${median(floors.map((row) => row.ofFloor.rate)).toFixed(2)}, floor's CPU per event ÷ the rebuild's median ${median(floors.map((row) => row.ofFloor.cpu)).toFixed(2)}`,
    );
  }
}
console.log(`B/A: ${['projection', 'ferretdb', 'kafka'].map((p) => `${p} ×${(medians.B[p] / medians.A[p]).toFixed(2)}`).join(', ')}`);
