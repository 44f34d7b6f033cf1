// node bench/send-waits.mjs — what a message waits for below capacity, untraced (issue 23: send p99,
// event on Kafka p99 and visible p99 at 100 and 200 msg/s; issue 24 goal 2 rides on the same path).
// One stack as bench/cost.mjs starts it (features off, 50 one-on-one pairs and 2 groups of 20), then an
// open loop at each of BENCH_RATES (default 100,200) for BENCH_SECONDS (default 20) each. Per rate it
// prints send / event on Kafka / visible p50, p99 (from the scheduled send; the event from a fresh
// consumer on chat.messages.events) and, per process, what could stall a message that is not load:
//   loop max / p99  the event loop's delay over the phase (prom-client's monitorEventLoopDelay, reset
//                   by the scrape before the phase): a long synchronous step shows as a max of tens of ms
//   gc              the phase's GC pauses (count, total ms, and how many took ≥ 10 ms)
// A wait that is neither (a queue, a window, a fetch behind another partition) shows only in the
// latencies; bench/send-stages.mjs splits those by stage (traced). Last per rate: the phase's window (UTC,
// for a JVM's GC or safepoint log) and each process's CPU ms per answered message over it (from /proc).
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { watchAppSends } from './kafkaProbe.mjs';
import { cpuSnapshot, stackProcesses } from './processCpu.mjs';
import { percentile, startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const RATES = (process.env.BENCH_RATES ?? '100,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);

const stack = await startBenchStack({ name: 'send waits' });
const { client, events } = await watchAppSends(stack, createGatewayClient);
const app = stack.app;

/** One scrape of a service's /metrics: the event loop's delay and the GC histogram (which a scrape does not reset). */
async function scrape(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  const gc = { count: 0, seconds: 0, under10ms: 0 };
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_(count|sum)\{kind="[a-z]+"\} ([0-9.e+-]+)/gm)) {
    if (match[1] === 'count') gc.count += Number(match[2]);
    else gc.seconds += Number(match[2]);
  }
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_bucket\{le="0\.01",kind="[a-z]+"\} ([0-9.e+-]+)/gm)) gc.under10ms += Number(match[1]);
  return { loopMax: value('nodejs_eventloop_lag_max_seconds'), loopP99: value('nodejs_eventloop_lag_p99_seconds'), gc };
}
const instances = stack.services.instances.map((i) => ({ name: `${i.service}${i.replica > 1 ? i.replica : ''}`, url: i.url }));
const scrapeAll = async () => new Map(await Promise.all(instances.map(async (i) => [i.name, await scrape(i.url).catch(() => undefined)])));

const traffic = createTraffic({ client, chat: app.chat, setupTimeoutS: 300 });
const targets = await traffic.createTargets({ prefix: 'sw', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
await sleep(2_000);

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const { processes } = stackProcesses(stack);
for (const rate of RATES) {
  const before = await scrapeAll();
  const answered = [];
  const cpuFrom = cpuSnapshot(processes);
  const from = new Date().toISOString();
  const loop = await traffic.openLoop(targets, rate, { seconds: SECONDS, visibleSamplesPerSecond: 20, pollBudgetPerSecond: 200, visibleTimeoutS: 10, onAnswered: (a) => answered.push(a) });
  const until = new Date().toISOString();
  const cpu = cpuSnapshot(processes).since(cpuFrom);
  const after = await scrapeAll();
  await sleep(1_000);
  const onKafka = answered.map((a) => events.arrivals.get(`${app.appId}/${a.id}`)).map((at, i) => (at === undefined ? NaN : at - answered[i].scheduledAt)).filter(Number.isFinite);
  onKafka.sort((a, b) => a - b);
  console.log(`\nopen loop ${rate} msg/s for ${SECONDS} s: ${answered.length} answered, ${loop.errors}, ${loop.late} late`);
  console.log(`  send p50 ${fmt(loop.sendP50)} p99 ${fmt(loop.sendP99)} ms; event on Kafka p50 ${fmt(percentile(onKafka, 50))} p99 ${fmt(percentile(onKafka, 99))} ms [${onKafka.length}]; visible p50 ${fmt(loop.visibleP50)} p99 ${fmt(loop.visibleP99)} ms [${loop.samples}, ${loop.notVisible} not visible]`);
  console.log(`  ${'process'.padEnd(16)} ${'loop max'.padStart(9)} ${'loop p99'.padStart(9)} ${'gc n'.padStart(6)} ${'gc ms'.padStart(7)} ${'gc ≥10ms'.padStart(8)}`);
  for (const { name } of instances) {
    const a = after.get(name);
    const b = before.get(name);
    if (!a || !b) continue;
    const gcN = a.gc.count - b.gc.count;
    console.log(
      `  ${name.padEnd(16)} ${fmt(a.loopMax * 1000).padStart(9)} ${fmt(a.loopP99 * 1000).padStart(9)} ${String(gcN).padStart(6)} ${fmt((a.gc.seconds - b.gc.seconds) * 1000).padStart(7)} ${String(gcN - (a.gc.under10ms - b.gc.under10ms)).padStart(8)}`,
    );
  }
  console.log(`  window ${from}/${until}`);
  console.log(`  cpu ms/msg ${[...cpu].map(([name, ms]) => `${name} ${(ms / answered.length).toFixed(3)}`).join(', ')}`);
}
await stack.stop();
process.exit(0);
