// node bench/idle-tail.mjs <build root A> [<build root B>] — what each process spends when no message
// moves (issue 23, ADR 0138): its CPU rate at rest and in the seconds after a load of the cost bench's
// shape has drained (bench/cost.mjs samples its "idle stack" in the 5 s right after its warm-up drained).
// Builds alternate on one Kafka, FerretDB and Redis as in send-path-cpu.mjs (bench/buildRounds.mjs; one
// root: every round on it). Each round starts one build's services and gateway, sets up the cost bench's
// traffic (BENCH_PAIRS pairs, BENCH_GROUPS groups of BENCH_GROUP_SIZE), warms up and waits until idle, then:
//  1. rest: each process's CPU ms per second over BENCH_REST_SECONDS (20) with nothing sent;
//  2. load: BENCH_CLIENTS (50) closed-loop clients for BENCH_LOAD_SECONDS (10), then until every consumer
//     group of the round has lag 0 (time to idle printed);
//  3. tail: CPU ms per second in the windows 0–5 s, 5–10 s and 10–30 s after that drain (the ends in
//     BENCH_TAIL_WINDOWS, s), and the services' Kafka requests per second in each (socketRequests.mjs);
//     in every window also each process's wake-ups per second (processWakeups: a count the machine's
//     other load does not move, unlike CPU time);
//  4. wake-up: right after the last window (≥ 30 s idle) one send to a one-on-one pair, its answer's
//     time and the time until the receiver's conversation shows it (polled every 5 ms), then the same for
//     a second send at once (warm): a cut that slowed the first send after a quiet spell shows here.
// Printed per round, then per build the mean of each window by process, and B ÷ A with two builds.
// With SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" and BENCH_ROUNDS=1, <dir>/windows.json names
// each window (rest, tail5, tail10, tail30; CLOCK_MONOTONIC µs) for `node bench/cpuProfileSummary.mjs <dir> tail5`.
// Knobs: BENCH_ROUNDS (2), BENCH_REST_SECONDS, BENCH_LOAD_SECONDS, BENCH_CLIENTS, BENCH_TAIL_WINDOWS (5,10,30),
// BENCH_PAIRS (50), BENCH_GROUPS (2), BENCH_GROUP_SIZE (20), BENCH_IDLE_TIMEOUT (60).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { alternatingOrder, startBuildRound, startSharedInfrastructure } from './buildRounds.mjs';
import { cpuSnapshot, processWakeups, stackProcesses } from './processCpu.mjs';
import { requestsBetween, requestsTo } from './socketRequests.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  rounds: knob('BENCH_ROUNDS', 2),
  restS: knob('BENCH_REST_SECONDS', 20),
  loadS: knob('BENCH_LOAD_SECONDS', 10),
  clients: knob('BENCH_CLIENTS', 50),
  tailEnds: (process.env.BENCH_TAIL_WINDOWS ?? '5,10,30').split(',').map(Number),
  pairs: knob('BENCH_PAIRS', 50),
  groups: knob('BENCH_GROUPS', 2),
  groupSize: knob('BENCH_GROUP_SIZE', 20),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 60),
};
const roots = process.argv.slice(2, 4).map((root) => resolve(root));
if (roots.length === 0) throw new Error('usage: node bench/idle-tail.mjs <build root A> [<build root B>]');
const SERVICES = ['gateway', 'users', 'conversations', 'messages', 'calls', 'management', 'notifications', 'webhooks', 'realtime'];
const SHOWN = [...SERVICES, 'ferretdb', 'kafka', 'redis'];
const WINDOWS = ['rest', ...CONFIG.tailEnds.map((end) => `tail${end}`)];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const profileDir = /--cpu-prof-dir=(\S+)/.exec(process.env.SERVICE_NODE_ARGS ?? '')?.[1];

const shared = await startSharedInfrastructure();
const { infra, probe } = shared;
const kafkaPort = new URL(`tcp://${infra.kafkaBrokers.split(',')[0]}`).port;

/** CPU ms/s and wake-ups/s by process, and the services' Kafka requests/s, over `seconds` from now. */
async function sample(processes, seconds) {
  const requestsFrom = requestsTo(kafkaPort);
  const wakeupsFrom = new Map(processes.map((p) => [p.name, processWakeups(p.pid)]));
  const from = cpuSnapshot(processes);
  const fromUs = monotonicUs();
  await sleep(seconds * 1000);
  const toUs = monotonicUs();
  const used = cpuSnapshot(processes).since(from);
  const s = (toUs - fromUs) / 1e6;
  const toKafka = requestsBetween(requestsFrom, requestsTo(kafkaPort));
  const kafkaRequests = processes.filter((p) => SERVICES.includes(p.name)).reduce((sum, p) => sum + (toKafka.get(p.pid) ?? 0), 0) / s;
  const wakeups = new Map(processes.map((p) => [p.name, (processWakeups(p.pid) - wakeupsFrom.get(p.name)) / s]));
  return { rates: new Map([...used].map(([name, ms]) => [name, ms / s])), wakeups, kafkaRequests, fromUs, toUs, seconds: s };
}

/** One send's answer time and the time until its receiver's conversation shows it (ms). */
async function timedSend(traffic, target, n) {
  const started = performance.now();
  const answer = await traffic.send(target, target.a, `idle-tail wake-up ${n}`);
  const answeredMs = performance.now() - started;
  if (answer.status !== 200) return { answeredMs, visibleMs: NaN };
  const sent = { id: answer.body.data.id, target, sender: target.a, receiver: target.b };
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline && !(await traffic.isVisible(sent))) await sleep(5);
  return { answeredMs, visibleMs: performance.now() - started };
}

async function runRound(root) {
  const round = await startBuildRound({
    infra,
    probe,
    root,
    name: 'idle tail',
    suffixPrefix: 'itl',
    targetPrefix: 'it',
    pairs: CONFIG.pairs,
    groups: CONFIG.groups,
    groupSize: CONFIG.groupSize,
    warmUpRate: 100,
    idleTimeoutS: CONFIG.idleTimeoutS,
    registerStop: shared.registerStop,
  });
  const { services, traffic, targets, ours } = round;
  try {
    const gatewayPid = Number(readFileSync(join(root, '.infra', 'run', `gateway-${new URL(services.gatewayUrl).port}.pid`), 'utf8'));
    const infraProcesses = stackProcesses({ infra, services }).processes.filter((p) => ['ferretdb', 'kafka', 'redis'].includes(p.name));
    const processes = [{ name: 'gateway', pid: gatewayPid }, ...services.instances.map((i) => ({ name: i.service, pid: i.pid() })), ...infraProcesses];
    const windows = { rest: await sample(processes, CONFIG.restS) };
    const loadFromUs = monotonicUs();
    const load = await traffic.sustainedSends(targets, { clients: CONFIG.clients, seconds: CONFIG.loadS });
    const loadEndedAt = performance.now();
    const quiet = await probe.waitForQuiet(ours, CONFIG.idleTimeoutS * 1000);
    const toIdleS = (performance.now() - loadEndedAt) / 1000;
    const loadToUs = monotonicUs();
    let previousEnd = 0;
    for (const end of CONFIG.tailEnds) {
      windows[`tail${end}`] = await sample(processes, end - previousEnd);
      previousEnd = end;
    }
    const pair = targets.find((t) => t.kind === 'user');
    const wake = [await timedSend(traffic, pair, 1), await timedSend(traffic, pair, 2)];
    if (profileDir) {
      const pids = Object.fromEntries(processes.map((p) => [p.pid, p.name]));
      const cut = Object.fromEntries(Object.entries(windows).map(([name, w]) => [name, { fromUs: w.fromUs, toUs: w.toUs, seconds: w.seconds }]));
      writeFileSync(join(profileDir, 'windows.json'), JSON.stringify({ pids, ...cut, load: { fromUs: loadFromUs, toUs: loadToUs, messages: load.sent } }, null, 2));
    }
    return { windows, load, quiet: quiet.quiet, toIdleS, wake };
  } finally {
    await shared.stopRound();
  }
}

const order = roots.length === 2 ? alternatingOrder(CONFIG.rounds) : Array.from({ length: CONFIG.rounds }, () => 0);
const results = roots.map(() => []);
const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
const total = (rates) => SHOWN.reduce((sum, name) => sum + (rates.get(name) ?? 0), 0);
console.log(`idle tail: ${roots.map((r, i) => `${'AB'[i]} ${r}`).join(', ')}; ${CONFIG.rounds} rounds (${order.map((i) => 'AB'[i]).join(' ')}); rest ${CONFIG.restS} s, load ${CONFIG.clients} clients × ${CONFIG.loadS} s, tail windows ending ${CONFIG.tailEnds.join(', ')} s after the drain`);
try {
  for (const [n, which] of order.entries()) {
    const started = new Date().toISOString().slice(11, 19);
    const r = await runRound(roots[which]);
    results[which].push(r);
    const loadAvg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `round ${n + 1} ${'AB'[which]} (${started}, load ${loadAvg}): load ${f(r.load.perSecond)} sends/s (${r.load.sent}, ${r.load.errors}), idle ${r.quiet ? `after ${f(r.toIdleS)} s` : 'NOT reached'}; ` +
        `wake-up after ${CONFIG.tailEnds.at(-1)} s idle: answer ${f(r.wake[0].answeredMs)} ms, visible ${f(r.wake[0].visibleMs)} ms; the next: ${f(r.wake[1].answeredMs)}, ${f(r.wake[1].visibleMs)} ms`,
    );
    for (const name of WINDOWS) {
      const w = r.windows[name];
      console.log(`  ${name.padEnd(7)} ${f(total(w.rates)).padStart(6)} ms/s: ${SHOWN.map((p) => `${p} ${f(w.rates.get(p))}`).join(', ')}; services→kafka ${f(w.kafkaRequests)} req/s`);
      console.log(`  ${''.padEnd(7)} ${f(total(w.wakeups), 0).padStart(6)} wake-ups/s: ${SHOWN.map((p) => `${p} ${f(w.wakeups.get(p), 0)}`).join(', ')}`);
    }
  }
  const mean = (rs, window, name, what = 'rates') => rs.reduce((sum, r) => sum + (name ? r.windows[window][what].get(name) : total(r.windows[window][what])), 0) / rs.length;
  const meanKafka = (rs, window) => rs.reduce((sum, r) => sum + r.windows[window].kafkaRequests, 0) / rs.length;
  console.log(`\nmean CPU ms per second by window${roots.length === 2 ? ': A | B | B ÷ A' : ''}`);
  for (const window of WINDOWS) {
    console.log(`  ${window}`);
    for (const name of [...SHOWN, null]) {
      const v = results.map((rs) => mean(rs, window, name));
      console.log(`    ${(name ?? 'all').padEnd(14)} ${v.map((x) => f(x, 2).padStart(7)).join(' |')}${v.length === 2 ? ` | ${f(v[1] / v[0], 2)}` : ''}`);
    }
    const wake = results.map((rs) => mean(rs, window, null, 'wakeups'));
    console.log(`    ${'wake-ups/s'.padEnd(14)} ${wake.map((x) => f(x, 0).padStart(7)).join(' |')}${wake.length === 2 ? ` | ${f(wake[1] / wake[0], 2)}` : ''}  (${SERVICES.map((p) => `${p} ${results.map((rs) => f(mean(rs, window, p, 'wakeups'), 0)).join('/')}`).join(', ')})`);
    const k = results.map((rs) => meanKafka(rs, window));
    console.log(`    ${'svc→kafka/s'.padEnd(14)} ${k.map((x) => f(x).padStart(7)).join(' |')}${k.length === 2 ? ` | ${f(k[1] / k[0], 2)}` : ''}`);
  }
  const wakeMean = (rs, i, key) => rs.reduce((s, r) => s + r.wake[i][key], 0) / rs.length;
  console.log(`\nwake-up (mean): ${results.map((rs, b) => `${'AB'[b]} first answer ${f(wakeMean(rs, 0, 'answeredMs'))} visible ${f(wakeMean(rs, 0, 'visibleMs'))}, next ${f(wakeMean(rs, 1, 'answeredMs'))} / ${f(wakeMean(rs, 1, 'visibleMs'))} ms, to idle ${f(rs.reduce((s, r) => s + r.toIdleS, 0) / rs.length)} s`).join('; ')}`);
} finally {
  await shared.stop();
}
process.exit(0);
