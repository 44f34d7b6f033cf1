// node bench/gc-pauses-ab.mjs — GC pauses on a send's path and what they do to its tail (ADR 0140/0141): the broker's and,
// optionally, the services'. Variants of the broker's JVM flags alternated (A B B A …) on one build: each round runs
// bench/send-waits.mjs (a fresh stack as bench/cost.mjs starts it, an open loop at BENCH_RATES for
// BENCH_SECONDS) with the variant's flags given to the broker's JVM through JAVA_TOOL_OPTIONS (flags the
// devstack's command line does not set) and a GC log per JVM (`-Xlog:gc`, the pid in its name). Per round:
// the open loop's send / event on Kafka / visible p50 and p99 as send-waits.mjs prints them, and the broker's
// stop-the-world pauses from its log after BENCH_GC_FROM seconds of its uptime (start-up left out): count,
// total, p50, max and how many took ≥ 20 ms. At the end per variant: the rounds' p99s and pauses pooled.
// A variant may also give the services' node options after a `|` (SERVICE_NODE_ARGS): then the messages and
// conversations services' GC count, time and pauses ≥ 10 ms (prom-client, as send-waits.mjs prints) per round.
// Knobs: BENCH_VARIANTS ("name=jvm flags[|node options];…", default the devstack's flags against Kafka's own
// launcher's G1 goal), BENCH_ROUNDS (4), BENCH_RATES (100), BENCH_SECONDS (20), BENCH_GC_FROM (25).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const GC_FROM_S = Number(process.env.BENCH_GC_FROM ?? 25);
const variants = (process.env.BENCH_VARIANTS ?? 'devstack=;kafka-g1=-XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35')
  .split(';')
  .map((spec) => {
    const [java, node = ''] = spec.slice(spec.indexOf('=') + 1).split('|');
    return { name: spec.split('=')[0], flags: java.trim(), nodeArgs: node.trim() };
  });


/** Stop-the-world pauses (ms) of a JVM's `-Xlog:gc` file, after `fromS` seconds of its uptime. */
function pausesOf(log, fromS) {
  const pauses = [];
  for (const match of log.matchAll(/^\[(\d+\.\d+)s\]\[info\]\[gc\s*\] GC\(\d+\) Pause .* (\d+\.\d+)ms$/gm)) {
    if (Number(match[1]) >= fromS) pauses.push(Number(match[2]));
  }
  return pauses;
}

function summary(pauses) {
  const sorted = [...pauses].sort((a, b) => a - b);
  const sum = sorted.reduce((s, p) => s + p, 0);
  return { n: sorted.length, sum, p50: sorted[Math.floor(sorted.length / 2)] ?? NaN, max: sorted.at(-1) ?? NaN, over20: sorted.filter((p) => p >= 20).length };
}

function runWaits({ flags, nodeArgs }, gcDir) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, JAVA_TOOL_OPTIONS: `${flags} -Xlog:gc:file=${join(gcDir, 'gc-%p.log')}`.trim(), BENCH_RATES: process.env.BENCH_RATES ?? '100' };
    if (nodeArgs) env.SERVICE_NODE_ARGS = nodeArgs;
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'send-waits.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`send-waits exited ${code}:\n${out}`))));
  });
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const order = [];
for (let r = 0; r < ROUNDS; r++) order.push(...(r % 2 === 0 ? variants : [...variants].reverse()));
const results = new Map(variants.map((v) => [v.name, { p99: [], pauses: [], node: {} }]));
for (const [i, variant] of order.entries()) {
  const gcDir = await mkdtemp(join(tmpdir(), 'broker-gc-'));
  const out = await runWaits(variant, gcDir);
  // The broker is the JVM that lived longest: the storage tool's runs log a second or so each.
  let pauses = [];
  for (const file of await readdir(gcDir)) {
    const found = pausesOf(await readFile(join(gcDir, file), 'utf8'), GC_FROM_S);
    if (found.length > pauses.length) pauses = found;
  }
  const line = /send p50 ([\d.]+) p99 ([\d.]+) ms; event on Kafka p50 ([\d.]+) p99 ([\d.]+) ms.*visible p50 ([\d.]+) p99 ([\d.]+) ms/.exec(out);
  const s = summary(pauses);
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ')[0];
  console.log(
    `round ${i + 1} ${variant.name.padEnd(10)} load ${load}  send p50/p99 ${line?.[1]}/${line?.[2]}  kafka ${line?.[3]}/${line?.[4]}  visible ${line?.[5]}/${line?.[6]} ms` +
      `  broker pauses ${s.n}, ${fmt(s.sum)} ms in all, p50 ${fmt(s.p50)}, max ${fmt(s.max)}, ≥20 ms ${s.over20}`,
  );
  const r = results.get(variant.name);
  if (line) r.p99.push({ send: Number(line[2]), kafka: Number(line[4]), visible: Number(line[6]) });
  r.pauses.push(...pauses);
  // send-waits.mjs's per-process table: GC count, ms and pauses ≥ 10 ms of the services on the path.
  for (const m of out.matchAll(/^ {2}(messages|conversations) +[\d.—]+ +[\d.—]+ +(\d+) +([\d.]+) +(\d+)$/gm)) {
    console.log(`        ${m[1].padEnd(14)} gc ${m[2]}, ${m[3]} ms, ≥10 ms ${m[4]}`);
    (r.node[m[1]] ??= []).push({ n: Number(m[2]), ms: Number(m[3]), over10: Number(m[4]) });
  }
}
console.log('\nper variant: p99s of its rounds (send / event on Kafka / visible) and the broker pauses pooled');
for (const { name } of variants) {
  const r = results.get(name);
  const s = summary(r.pauses);
  for (const [service, list] of Object.entries(r.node)) {
    const total = (key) => list.reduce((sum, x) => sum + x[key], 0);
    console.log(`${''.padEnd(10)} ${service}: gc ${total('n')}, ${total('ms').toFixed(1)} ms, ≥10 ms ${total('over10')} over ${list.length} rounds`);
  }
  console.log(`${name.padEnd(10)} ${r.p99.map((p) => `${p.send}/${p.kafka}/${p.visible}`).join('  ')}  pauses ${s.n}, ${fmt(s.sum)} ms, p50 ${fmt(s.p50)}, max ${fmt(s.max)}, ≥20 ms ${s.over20}`);
}
