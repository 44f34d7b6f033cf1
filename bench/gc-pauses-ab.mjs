// node bench/gc-pauses-ab.mjs — GC pauses on a send's path and what they do to its tail (ADR 0140/0141/0149): the
// broker's and, optionally, the services'. Variants of the broker's JVM flags alternated (A B B A …) on one build:
// each round runs bench/send-waits.mjs (a fresh stack as bench/cost.mjs starts it, an open loop at each of
// BENCH_RATES for BENCH_SECONDS) with the variant's flags given to the broker alone through the devstack's
// KAFKA_HEAP_OPTS / KAFKA_JVM_PERFORMANCE_OPTS (infra/devstack/src/brokerJvm.ts): a collector flag
// (`-XX:+UseShenandoahGC`) takes the place of the devstack's (`-XX:+UseZGC`, ADR 0149), `-Xms…`/`-Xmx…` of its heap sizes, anything
// else is added after the devstack's flags. The broker logs its GC and safepoints (`-Xlog:gc,safepoint`, UTC
// times) to a file per round. Per round and rate: the open loop's send / event on Kafka / visible p50 and p99 as
// send-waits.mjs prints them; the broker's stops inside that rate's window — every safepoint (a GC pause of any
// collector, and the JVM's other stop-the-world operations), time to reach it included: count ≥ 1 ms, total,
// p50 and max of those, how many took ≥ 20 ms, and allocation stalls (a concurrent collector that fell behind
// stops the allocating thread instead) — and the broker's CPU ms per answered message over the window (all its
// threads: the concurrent collectors' work counts), beside all the stack's processes'. At the end per variant
// and rate: the rounds' p99s, their means, the stops pooled and the CPU per message's mean.
// A variant may also give the services' node options after a `|` (SERVICE_NODE_ARGS): then the messages and
// conversations services' GC count, time and pauses ≥ 10 ms (prom-client, as send-waits.mjs prints) per round.
// Knobs: BENCH_VARIANTS ("name=jvm flags[|node options];…", default the devstack's flags against G1, which it
// ran before ADR 0149; ADR 0141's `kafka-g1=-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35`
// is Kafka's own launcher's G1), BENCH_ROUNDS (4), BENCH_RATES (100), BENCH_SECONDS (20).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROKER_HEAP_OPTS, BROKER_JVM_PERFORMANCE_OPTS } from '@chat/devstack';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const variants = (process.env.BENCH_VARIANTS ?? 'devstack=;g1=-XX:+UseG1GC')
  .split(';')
  .map((spec) => {
    const [java, node = ''] = spec.slice(spec.indexOf('=') + 1).split('|');
    return { name: spec.split('=')[0], flags: java.trim().split(/\s+/).filter(Boolean), nodeArgs: node.trim() };
  });

const COLLECTOR = /^-XX:\+Use\w+GC$/;
const HEAP = /^-Xm[sx]/;
/** The broker's flag groups for a variant: the devstack's, with the variant's collector and heap sizes in their place. */
function brokerEnv(flags, logFile) {
  const heap = [...BROKER_HEAP_OPTS.filter((d) => !flags.some((f) => HEAP.test(f) && f.slice(0, 4) === d.slice(0, 4))), ...flags.filter((f) => HEAP.test(f))];
  const collector = flags.find((f) => COLLECTOR.test(f));
  const performance = [
    ...BROKER_JVM_PERFORMANCE_OPTS.map((d) => (collector && COLLECTOR.test(d) ? collector : d)),
    ...flags.filter((f) => !HEAP.test(f) && !COLLECTOR.test(f)),
    `-Xlog:gc,safepoint:file=${logFile}:utctime,level,tags`,
  ];
  return { KAFKA_HEAP_OPTS: heap.join(' '), KAFKA_JVM_PERFORMANCE_OPTS: performance.join(' ') };
}

const at = (utc) => Date.parse(utc.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
/** The broker's stops (ms, time to safepoint included) and allocation stalls (ms) inside [from, until] (epoch ms). */
function stopsOf(log, from, until) {
  const stops = [];
  const stalls = [];
  for (const m of log.matchAll(/^\[([^\]]+)\]\[info\]\[safepoint\s*\] Safepoint "[^"]+", .*Total: (\d+) ns$/gm)) {
    const t = at(m[1]);
    if (t >= from && t <= until) stops.push(Number(m[2]) / 1e6);
  }
  for (const m of log.matchAll(/^\[([^\]]+)\]\[info\]\[gc\s*\] Allocation Stall .* (\d+\.\d+)ms$/gm)) {
    const t = at(m[1]);
    if (t >= from && t <= until) stalls.push(Number(m[2]));
  }
  return { stops, stalls };
}

function summary(stops, stalls = []) {
  const sorted = stops.filter((p) => p >= 1).sort((a, b) => a - b);
  return {
    n: sorted.length,
    sum: stops.reduce((s, p) => s + p, 0),
    p50: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    max: sorted.at(-1) ?? NaN,
    over20: sorted.filter((p) => p >= 20).length,
    stalls: stalls.length,
    stalled: stalls.reduce((s, p) => s + p, 0),
  };
}

function runWaits({ flags, nodeArgs }, gcDir) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...brokerEnv(flags, join(gcDir, 'gc-%p.log')), BENCH_RATES: process.env.BENCH_RATES ?? '100' };
    if (nodeArgs) env.SERVICE_NODE_ARGS = nodeArgs;
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'send-waits.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`send-waits exited ${code}:\n${out}`))));
  });
}

const fmt = (v, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const mean = (list) => list.reduce((s, v) => s + v, 0) / list.length;
const order = [];
for (let r = 0; r < ROUNDS; r++) order.push(...(r % 2 === 0 ? variants : [...variants].reverse()));
/** Per variant, per rate: the rounds' p99s, stops, stalls, CPU per message, and the services' GC. */
const results = new Map(variants.map((v) => [v.name, new Map()]));
console.log(`gc-pauses-ab: ${order.map((v) => v.name).join(' ')}; rates ${process.env.BENCH_RATES ?? '100'} msg/s for ${process.env.BENCH_SECONDS ?? 20} s`);
for (const variant of variants) console.log(`  ${variant.name}: ${Object.entries(brokerEnv(variant.flags, '…')).map(([k, v]) => `${k}="${v}"`).join(' ')}`);
for (const [i, variant] of order.entries()) {
  const gcDir = await mkdtemp(join(tmpdir(), 'broker-gc-'));
  const out = await runWaits(variant, gcDir);
  let log = '';
  for (const file of await readdir(gcDir)) {
    const text = await readFile(join(gcDir, file), 'utf8');
    if (text.length > log.length) log = text;
  }
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  console.log(`round ${i + 1} ${variant.name} (load ${load}; log ${gcDir})`);
  for (const block of out.split('\nopen loop ').slice(1)) {
    const rate = Number(/^(\d+)/.exec(block)[1]);
    const line = /send p50 ([\d.]+) p99 ([\d.]+) ms; event on Kafka p50 ([\d.]+) p99 ([\d.]+) ms.*visible p50 ([\d.]+) p99 ([\d.]+) ms/.exec(block);
    const window = /window (\S+)\/(\S+)/.exec(block);
    const cpu = new Map([...(/cpu ms\/msg (.*)/.exec(block)?.[1] ?? '').matchAll(/(\S+) ([\d.]+|NaN)/g)].map((m) => [m[1], Number(m[2])]));
    const { stops, stalls } = window ? stopsOf(log, Date.parse(window[1]), Date.parse(window[2])) : { stops: [], stalls: [] };
    const s = summary(stops, stalls);
    const all = [...cpu.values()].filter(Number.isFinite).reduce((sum, v) => sum + v, 0);
    console.log(
      `  ${String(rate).padStart(4)} msg/s  send p50/p99 ${line?.[1]}/${line?.[2]}  kafka ${line?.[3]}/${line?.[4]}  visible ${line?.[5]}/${line?.[6]} ms` +
        `  broker stops ≥1 ms ${s.n}, ${fmt(s.sum)} ms in all, p50 ${fmt(s.p50)}, max ${fmt(s.max)}, ≥20 ms ${s.over20}, stalls ${s.stalls} (${fmt(s.stalled)} ms)` +
        `  cpu ms/msg kafka ${fmt(cpu.get('kafka'), 3)}, all ${fmt(all, 3)}`,
    );
    const r = results.get(variant.name);
    if (!r.has(rate)) r.set(rate, { p99: [], stops: [], stalls: [], kafkaCpu: [], allCpu: [], node: {} });
    const byRate = r.get(rate);
    if (line) byRate.p99.push({ send: Number(line[2]), kafka: Number(line[4]), visible: Number(line[6]) });
    byRate.stops.push(...stops);
    byRate.stalls.push(...stalls);
    byRate.kafkaCpu.push(cpu.get('kafka'));
    byRate.allCpu.push(all);
    // send-waits.mjs's per-process table: GC count, ms and pauses ≥ 10 ms of the services on the path.
    for (const m of block.matchAll(/^ {2}(messages|conversations) +[\d.—]+ +[\d.—]+ +(\d+) +([\d.]+) +(\d+)$/gm)) {
      if (!variant.nodeArgs) continue;
      console.log(`        ${m[1].padEnd(14)} gc ${m[2]}, ${m[3]} ms, ≥10 ms ${m[4]}`);
      (byRate.node[m[1]] ??= []).push({ n: Number(m[2]), ms: Number(m[3]), over10: Number(m[4]) });
    }
  }
}
console.log('\nper variant and rate: p99s of its rounds (send / event on Kafka / visible) and their means, the broker stops pooled, CPU ms per message (mean of rounds)');
for (const { name } of variants) {
  for (const [rate, r] of results.get(name)) {
    const s = summary(r.stops, r.stalls);
    for (const [service, list] of Object.entries(r.node)) {
      const total = (key) => list.reduce((sum, x) => sum + x[key], 0);
      console.log(`${''.padEnd(12)} ${service}: gc ${total('n')}, ${total('ms').toFixed(1)} ms, ≥10 ms ${total('over10')} over ${list.length} rounds`);
    }
    const means = ['send', 'kafka', 'visible'].map((k) => fmt(mean(r.p99.map((p) => p[k])), 0)).join('/');
    console.log(
      `${name.padEnd(12)} ${String(rate).padStart(4)}  ${r.p99.map((p) => `${p.send}/${p.kafka}/${p.visible}`).join('  ')}  mean ${means}` +
        `  stops ≥1 ms ${s.n}, ${fmt(s.sum)} ms, p50 ${fmt(s.p50)}, max ${fmt(s.max)}, ≥20 ms ${s.over20}, stalls ${s.stalls}` +
        `  cpu kafka ${fmt(mean(r.kafkaCpu), 3)}, all ${fmt(mean(r.allCpu), 3)}`,
    );
  }
}
