// The rebuild benchmark against two FerretDB runner builds in one run (ADR 0102): this worktree's (the
// devstack's) and another binary started here on a scratch directory, e.g. main's, alternated round by
// round over one Kafka, so a loaded machine moves both alike. Prints per round and runner the rebuild's
// CPU ms per event by process and the raw shapes' FerretDB CPU per document, then the medians.
//   node bench/rebuild-runner-ab.mjs <other runner binary> [events per round]     (BENCH_ROUNDS, default 2)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startInfrastructure } from '@chat/devstack';
import { benchProjectionRebuild } from './projection-rebuild.mjs';

const [binary, eventsArg] = process.argv.slice(2);
if (!binary) throw new Error('usage: node bench/rebuild-runner-ab.mjs <other runner binary> [events per round]');
const events = Number(eventsArg ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** The other runner on a free port; its pid where the bench's CPU sampler looks (`.infra/run`). */
async function startOther() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rebuild-ab-'));
  const child = spawn(binary, ['--listen-addr', `127.0.0.1:${port}`, '--sqlite-dir', dir], { stdio: 'ignore' });
  const pidFile = fileURLToPath(new URL(`../.infra/run/ferretdb-${port}.pid`, import.meta.url));
  writeFileSync(pidFile, String(child.pid));
  await sleep(1_000);
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    stop: () => {
      child.kill();
      unlinkSync(pidFile);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const infra = await startInfrastructure({ freshKafkaData: true });
let other;
const rows = [];
try {
  other = await startOther();
  const runners = { other: { ...infra, mongoUrl: other.url }, this: infra };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const r = await benchProjectionRebuild({ events, infra: runners[name] });
      const row = { runner: name, eventsPerSecond: r.eventsPerSecond, documents: r.documents, cpuPerEvent: r.cpuPerEvent, rawFerretdbPerDocument: r.raw.map((x) => x.cpu.ferretdb) };
      rows.push(row);
      console.log(`round ${round + 1} ${JSON.stringify(row)}`);
    }
  }
} finally {
  other?.stop();
  await infra.stop();
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
for (const runner of ['other', 'this']) {
  const mine = rows.filter((row) => row.runner === runner);
  const cpu = (name) => median(mine.map((row) => row.cpuPerEvent[name])).toFixed(3);
  console.log(
    `${runner}: rebuild CPU ms/event ferretdb ${cpu('ferretdb')}, projection ${cpu('projection')}, kafka ${cpu('kafka')}; ` +
      `raw FerretDB ms/doc ${mine[0].rawFerretdbPerDocument.map((_, i) => median(mine.map((row) => row.rawFerretdbPerDocument[i])).toFixed(3)).join(' / ')}; ` +
      `${Math.round(median(mine.map((row) => row.eventsPerSecond)))} events/s`,
  );
}
