// node bench/stall-timeline.mjs — one timeline (ms since the epoch) of every send's stages and of what each
// process and the machine did, to find what a stall of a few hundred ms in a 20 s latency window lines up
// with (issue 23, ADR 0155). The cost bench's stack and traffic (50 one-on-one pairs and 2 groups of 20),
// BENCH_SUSTAINED_SECONDS (20) of closed-loop sends with 50 clients as bench/cost.mjs runs before its open
// loops, then an open loop at each of BENCH_RATES (100,200,200,200) for BENCH_SECONDS (60) each. Recorded:
//   sends     every send's scheduled time, answer, arrival on chat.messages.events (a fresh consumer) and,
//             for 20 a second, when its receiver's conversation showed it (bench/visibilityWatcher.mjs)
//   store     every command that waited for the runner's write lock and ran ≥ FERRETDB_SLOW_COMMANDS (50ms)
//   fsync     every fsync/fdatasync on the machine (`perf trace -a`); the runner's are its WAL checkpoints
//   services  event-loop stalls ≥ 30 ms and GC pauses ≥ 5 ms in every service (bench/stallProbe.mjs)
//   broker    the JVM's safepoints and GC pauses (-Xlog through JAVA_TOOL_OPTIONS)
//   profiles  with SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<BENCH_TIMELINE_DIR>/prof", what the busiest
//             services ran in each episode
//   machine   a process of nothing of ours: its own wake-up lateness, CPU/IO pressure, top processes
//             by CPU per 100 ms (bench/machineProbe.mjs)
// Then the stalls: sends whose answer, Kafka arrival or visibility passed BENCH_STALL_MS (100) grouped into
// episodes (gaps < 1 s), each printed with everything recorded from 500 ms before it to its end, and per
// kind of event the share of episodes it overlaps. Everything is left in BENCH_TIMELINE_DIR (/tmp/stall-<time>).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { watchAppSends } from './kafkaProbe.mjs';
import { pidFromFile, stackProcesses } from './processCpu.mjs';
import { startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const RATES = (process.env.BENCH_RATES ?? '100,200,200,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SUSTAINED_S = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 20);
const DIR = process.env.BENCH_TIMELINE_DIR ?? `/tmp/stall-${new Date().toISOString().replace(/[:.]/g, '-')}`;
mkdirSync(DIR, { recursive: true });
const here = fileURLToPath(new URL('.', import.meta.url));

process.env.SERVICE_NODE_ARGS = `${process.env.SERVICE_NODE_ARGS ?? ''} --import ${join(here, 'stallProbe.mjs')}`.trim();
process.env.STALL_PROBE_DIR = DIR;
process.env.FERRETDB_SLOW_COMMANDS ??= '50ms';
process.env.JAVA_TOOL_OPTIONS = `${process.env.JAVA_TOOL_OPTIONS ?? ''} -Xlog:safepoint,gc:file=${join(DIR, 'broker-jvm.log')}:timemillis`.trim();

const machine = spawn(process.execPath, [join(here, 'machineProbe.mjs'), join(DIR, 'machine.jsonl')], { stdio: ['pipe', 'inherit', 'inherit'] });
const stack = await startBenchStack({ name: 'stall timeline' });
stack.onStop(() => machine.stdin.end());
const storePid = pidFromFile(`ferretdb-${new URL(stack.infra.mongoUrl).port}`);
const storeLogPath = join(here, '..', '.infra', 'logs', `ferretdb-${new URL(stack.infra.mongoUrl).port}.log`);
const storeLogStart = existsSync(storeLogPath) ? readFileSync(storeLogPath).length : 0;
// Every fsync on the machine (the runner's are its WAL checkpoints), on perf's clock (CLOCK_MONOTONIC, ms).
const monotonicToEpoch = Date.now() - Number(process.hrtime.bigint() / 1_000_000n);
const fsyncs = spawn('perf', ['trace', '-T', '-a', '-e', 'fsync,fdatasync', '-o', join(DIR, 'fsync.txt')], { stdio: 'ignore' });
stack.onStop(() => fsyncs.kill('SIGINT'));
const { client, events, probe } = await watchAppSends(stack, createGatewayClient);
const stackGroups = (groupId) => groupId.endsWith(`_${stack.databaseSuffix}`);
const traffic = createTraffic({ client, chat: stack.app.chat, setupTimeoutS: 300 });
const targets = await traffic.createTargets({ prefix: 'tl', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
console.log(`stall timeline: ${DIR}; store pid ${storePid}; ${SUSTAINED_S} s sustained, then ${RATES.join(', ')} msg/s for ${SECONDS} s each`);
if (SUSTAINED_S > 0) {
  const s = await traffic.sustainedSends(targets, { clients: 50, seconds: SUSTAINED_S });
  console.log(`  sustained: ${s.latencies?.length ?? '?'} sends`);
}
const epoch = (mark) => performance.timeOrigin + mark;
/** Every open-loop send: { rate, id, scheduled, answered, kafka, visible } in ms since the epoch. */
const sends = new Map();
const loops = [];
for (const rate of RATES) {
  await probe.waitForQuiet(stackGroups, 60_000);
  await sleep(1_000);
  const startedAt = Date.now();
  const r = await traffic.openLoop(targets, rate, {
    seconds: SECONDS,
    visibleSamplesPerSecond: 20,
    pollBudgetPerSecond: 200,
    visibleTimeoutS: 10,
    onAnswered: (a) => sends.set(a.id, { rate, id: a.id, scheduled: epoch(a.scheduledAt), answered: epoch(a.answeredAt) }),
    onVisible: (v) => {
      const s = sends.get(v.id);
      if (s) s.visible = epoch(v.seenAt);
    },
  });
  loops.push({ rate, startedAt, endedAt: Date.now(), r });
  console.log(`  ${rate} msg/s: send p50 ${r.sendP50?.toFixed(1)} p99 ${r.sendP99?.toFixed(1)} ms; visible p50 ${r.visibleP50?.toFixed(1)} p99 ${r.visibleP99?.toFixed(1)} ms; ${r.late} started late; ${r.errors}`);
  await sleep(2_000);
}
await sleep(2_000);
for (const s of sends.values()) {
  const at = events.arrivals.get(`${stack.app.appId}/${s.id}`);
  if (at !== undefined) s.kafka = epoch(at);
}
writeFileSync(join(DIR, 'sends.json'), JSON.stringify([...sends.values()]));
writeFileSync(join(DIR, 'loops.json'), JSON.stringify(loops.map(({ rate, startedAt, endedAt, r }) => ({ rate, startedAt, endedAt, sendP99: r.sendP99, visibleP99: r.visibleP99, late: r.late }))));
const fds = {};
const storeThreads = storePid ? readdirSync(`/proc/${storePid}/task`).map(Number) : [];
if (storePid) for (const fd of readdirSync(`/proc/${storePid}/fd`)) {
  try {
    fds[fd] = readlinkSync(`/proc/${storePid}/fd/${fd}`);
  } catch {
    // closed meanwhile
  }
}
writeFileSync(join(DIR, 'processes.json'), JSON.stringify({ processes: stackProcesses(stack).processes, bench: process.pid, machineProbe: machine.pid, storePid, storeThreads, storeFds: fds, monotonicToEpoch }));
if (existsSync(storeLogPath)) writeFileSync(join(DIR, 'store.log'), readFileSync(storeLogPath).subarray(storeLogStart));
await stack.stop();
await sleep(500);
execFileSync(process.execPath, [join(here, 'stallTimelineReport.mjs'), DIR], { stdio: 'inherit' });
process.exit(0);
