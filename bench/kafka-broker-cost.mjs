// node bench/kafka-broker-cost.mjs — what the Kafka broker spends per message with the stack's consumer
// shape on the messages topic, under broker settings (JVM flags, server.properties) and consumer options
// taken in turn (ADR 0072). For each variant and round: a fresh broker of its own (KAFKA_PORT,
// KAFKA_CONTROLLER_PORT; the jars infra/scripts/prepare.sh builds), a 3-partition topic, the eight
// groups that read chat.messages.events in the stack (the real EventConsumer and EventWatch of
// packages/kafka, with each service's options), an outbox-shaped producer (one produce in flight, what
// queued meanwhile goes in the next one; idempotent, acks all, ~700-byte records with the four headers)
// at BENCH_RATE msg/s for BENCH_SECONDS. Prints the broker's CPU (/proc, all threads) idle (ms/s, before
// the load) and per message (load window until every group has its records), and Kafka requests per
// message by group and API (kafkajs's own debug log, counted). Variants alternate, so a drift of the
// machine's load hits each alike. BENCH_VARIANTS picks some by name (comma-separated; also `j17`, `j25`, `j25-coh`,
// `j25-tiered`, `j25-serial`: the JDK and its flags, ADR 0133). Each round also
// prints the broker's CPU per message by thread kind (/proc: request handlers and network threads share
// the 15-character name `data-plane-kafk`; JIT, GC), its system share and context switches (ADR 0087);
// the `jfr` variant records a Flight Recorder profile to BENCH_JFR (`jfr print --events jdk.ExecutionSample`).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JDK_VARIANTS, MAIN_JVM, startBroker as startSharedBroker, stopBroker } from './benchBroker.mjs';
import { percentile } from './percentile.mjs';
import { processCpuMs } from './processCpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { EventConsumer, EventWatch, ensureTopics } = await import(pathToFileURL(join(ROOT, 'packages/kafka/dist/index.js')).href);
const { testEnvelope } = await import(pathToFileURL(join(ROOT, 'packages/eventsourcing/dist/testing.js')).href);
const { Kafka, logLevel } = await import(pathToFileURL(join(ROOT, 'packages/kafka/node_modules/kafkajs/index.js')).href);

const port = Number(process.env.KAFKA_PORT ?? 19492);
const controllerPort = Number(process.env.KAFKA_CONTROLLER_PORT ?? port + 1);
const rate = Number(process.env.BENCH_RATE ?? 150);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const applyMs = Number(process.env.BENCH_APPLY_MS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 8);
const libs = join(ROOT, '.infra', 'kafka', 'libs');
const brokerDir = join(ROOT, '.infra', 'kafka', `bench-cost-${port}`);

const SMALL_JVM = ['-Xms256m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData'];
const PARALLEL_JVM = ['-Xms256m', '-Xmx512m', '-XX:+UseParallelGC', '-XX:ParallelGCThreads=1', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData'];
const ONE_THREAD_PROPS = { 'num.network.threads': '1', 'num.io.threads': '1' };
const KRAFT_IDLE_PROPS = { 'metadata.max.idle.interval.ms': '5000' };
/** The broker as session 9 left it (ADR 0122 changed these): the JVM's perf data on, a KRaft no-op every 5 s, a heartbeat every 2 s. */
const S9_JVM = ['-Xms256m', '-Xmx512m', '-XX:+UseG1GC', '-XX:TieredStopAtLevel=1'];
const S9_PROPS = { 'metadata.max.idle.interval.ms': '5000', 'broker.heartbeat.interval.ms': '2000', 'broker.session.timeout.ms': '9000' };
const CALLS_GATHER = { calls: { minBytes: 64 * 1024, maxWaitMs: 250 } };
const NEAR = { minBytes: 64 * 1024, maxWaitMs: 25 };
const NEAR_GATHER = { ...CALLS_GATHER, notifications: NEAR, webhooks: NEAR };

/** The readers of chat.messages.events in the stack (ADR 0072 counts them), with their options. */
function groups(variant) {
  const skipAll = (records) => records.map(() => false);
  return [
    { name: 'conversations' },
    { name: 'messages' },
    { name: 'messages.agents', gather: { minBytes: 256 * 1024, maxWaitMs: 250 }, select: skipAll },
    { name: 'notifications', ...gatherOf(variant, 'notifications') },
    { name: 'webhooks', select: skipAll, ...gatherOf(variant, 'webhooks') },
    { name: 'management.audit', gather: { minBytes: 512 * 1024, maxWaitMs: 1_000 }, select: skipAll },
    { name: 'calls', select: skipAll, ...gatherOf(variant, 'calls') },
    { name: 'messages.watch', watch: true },
  ];
}

function gatherOf(variant, name) {
  const gather = variant.gather?.[name];
  return gather ? { gather } : {};
}

const VARIANTS = [
  { name: 'main', jvm: MAIN_JVM, props: {} },
  { name: 's9', jvm: S9_JVM, props: S9_PROPS },
  { name: 's9-props', jvm: MAIN_JVM, props: S9_PROPS },
  { name: 'main-one-thread', jvm: MAIN_JVM, props: ONE_THREAD_PROPS },
  { name: 'serialgc', jvm: SMALL_JVM, props: {} },
  { name: 'parallelgc', jvm: PARALLEL_JVM, props: {} },
  { name: 'one-thread', jvm: MAIN_JVM, props: ONE_THREAD_PROPS },
  { name: 'kraft-idle', jvm: MAIN_JVM, props: KRAFT_IDLE_PROPS },
  { name: 'calls-gather', jvm: MAIN_JVM, props: {}, gather: CALLS_GATHER },
  { name: 'near-gather', jvm: MAIN_JVM, props: {}, gather: NEAR_GATHER },
  { name: 'jfr', jvm: [...MAIN_JVM, `-XX:StartFlightRecording=filename=${process.env.BENCH_JFR ?? '/tmp/broker.jfr'},settings=profile,dumponexit=true`], props: {} },
  { name: 'c2', jvm: ['-Xms256m', '-Xmx512m', '-XX:+UseG1GC'], props: {} },
  { name: 'all', jvm: SMALL_JVM, props: { ...ONE_THREAD_PROPS, ...KRAFT_IDLE_PROPS }, gather: NEAR_GATHER },
];
/** The JDK and its flags (benchBroker.mjs JDK_VARIANTS, ADR 0133), by name only: `j17` is `main`, the `j25*` Temurin 25. */
const JDKS = Object.entries(JDK_VARIANTS).map(([name, jdk]) => ({ name, ...jdk, props: {} }));
const chosen = process.env.BENCH_VARIANTS ? process.env.BENCH_VARIANTS.split(',').map((n) => [...VARIANTS, ...JDKS].find((v) => v.name === n) ?? fail(`no variant ${n}`)) : VARIANTS;

function fail(message) {
  throw new Error(message);
}

/** CPU ms of each of the broker's threads by kind (its name less digits): GC, JIT, network, request handlers… */
function threadCpu(pid) {
  const byKind = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[-#]?\d+/g, '').trim();
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byKind.set(name, (byKind.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
      byKind.set('(system)', (byKind.get('(system)') ?? 0) + Number(fields[12]) * 10);
      const switches = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8').match(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm) ?? [];
      byKind.set('(switches/1000)', (byKind.get('(switches/1000)') ?? 0) + switches.reduce((sum, line) => sum + Number(line.split(/\s+/).pop()), 0) / 1000);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return byKind;
}

function startBroker(variant) {
  return startSharedBroker({ root: ROOT, port, controllerPort, dir: brokerDir, admin: client('probe').admin(), jvm: variant.jvm, props: variant.props, libs, java: variant.java });
}

/** A kafkajs client that counts its requests by API (`tally`), from kafkajs's debug log. */
function client(name, tally) {
  return new Kafka({
    clientId: `broker-cost-${name}`,
    brokers: [`127.0.0.1:${port}`],
    logLevel: tally ? logLevel.DEBUG : logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
    logCreator: () => (entry) => {
      const api = /^Request (\w+)\(/.exec(entry.log.message)?.[1];
      if (api && tally) tally.set(api, (tally.get(api) ?? 0) + 1);
    },
  });
}

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {}, child: () => silent, level: 'silent' };

/** A valid event (the consumers decode what they keep), about the size of a `MessageSent`. */
function envelope(i) {
  const uid = `u${i}-${randomBytes(4).toString('hex')}`;
  return JSON.stringify(testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: `${uid} ${'n'.repeat(60)}`, role: 'default', tags: ['a', 'b', 'c'], createdAt: Date.now() }, Date.now()));
}

async function measure(variant) {
  const broker = await startBroker(variant);
  const topic = 'chat.messages.events';
  const setup = client('setup');
  await ensureTopics(setup, [topic], 3);
  const tallies = new Map();
  const seen = new Map();
  // Send (due time) → handed to the handler, for the groups with a latency goal.
  const arrivals = new Map([['conversations', []], ['notifications', []]]);
  const parts = [];
  for (const group of groups(variant)) {
    const tally = new Map();
    tallies.set(group.name, tally);
    seen.set(group.name, 0);
    const count = (n) => seen.set(group.name, seen.get(group.name) + n);
    const kafka = client(group.name, tally);
    if (group.watch) {
      // Messages' watch keeps fact events only; a MessageSent is skipped by its header.
      parts.push(new EventWatch(kafka, { purpose: `bench.${group.name}`, topics: [topic], startFromGroup: 'bench.messages', onEvents: () => undefined, select: () => false, logger: silent }));
      continue;
    }
    parts.push(
      new EventConsumer(kafka, {
        groupId: `bench.${group.name}`,
        topics: [topic],
        logger: silent,
        handler: async (events) => {
          count(events.length);
          const latencies = arrivals.get(group.name);
          if (latencies) {
            const now = performance.now();
            for (const event of events) {
              const at = sentAt.get(event.data.uid);
              if (at !== undefined) latencies.push(now - at);
            }
          }
          if (applyMs > 0) await sleep(applyMs);
        },
        ...(group.select ? { select: (records) => { count(records.length); return group.select(records); } } : {}),
        ...(group.gather ? { gather: group.gather } : {}),
      }),
    );
  }
  await Promise.all(parts.map((p) => p.start()));
  while (!parts.every((p) => !('joined' in p) || p.joined)) await sleep(100);
  await sleep(3_000);

  const producerTally = new Map();
  tallies.set('producer', producerTally);
  const producer = client('producer', producerTally).producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  // Warm the broker's JIT first (the stack's broker has run for a while when the bench measures it).
  await load(producer, topic, rate * warmupSeconds);
  await sleep(3_000);
  const idleFrom = processCpuMs(broker.pid);
  await sleep(idleSeconds * 1_000);
  const idleRate = (processCpuMs(broker.pid) - idleFrom) / idleSeconds;
  for (const t of tallies.values()) t.clear();
  for (const name of seen.keys()) seen.set(name, 0);
  for (const list of arrivals.values()) list.length = 0;
  const acked = [];
  measuring = acked;
  const cpuFrom = processCpuMs(broker.pid);
  const threadsFrom = threadCpu(broker.pid);
  const started = performance.now();
  const total = rate * seconds;
  await load(producer, topic, total);
  const consumers = [...seen.keys()].filter((n) => n !== 'messages.watch');
  const deadline = performance.now() + 15_000;
  while (consumers.some((n) => seen.get(n) < total) && performance.now() < deadline) await sleep(50);
  const window = (performance.now() - started) / 1000;
  const cpu = processCpuMs(broker.pid) - cpuFrom;
  const threads = [...threadCpu(broker.pid)].map(([kind, ms]) => [kind, (ms - (threadsFrom.get(kind) ?? 0)) / total]).filter(([, ms]) => ms >= 0.005).sort((a, b) => b[1] - a[1]);
  const requests = [...tallies].map(([name, t]) => [name, [...t].filter(([api]) => api !== 'ApiVersions')]);
  await producer.disconnect();
  await Promise.all(parts.map((p) => p.stop()));
  await stopBroker(broker);
  measuring = null;
  const p = (list, q) => (list.length ? percentile([...list].sort((a, b) => a - b), q) : NaN);
  const latency = [['produce', acked], ...arrivals].map(([name, list]) => `${name} p50 ${p(list, 50).toFixed(0)} p99 ${p(list, 99).toFixed(0)}`).join(', ');
  return { threads, latency, idleRate, cpuPerMessage: cpu / total, idlePerMessage: (idleRate * window) / total, window, requests, behind: consumers.filter((n) => seen.get(n) < total) };
}

/** Due time of each record sent in the measured window, by uid; its produce's ack times go to `measuring`. */
const sentAt = new Map();
let measuring = null;

/** An outbox-shaped open loop: one produce in flight, whatever queued meanwhile goes in the next. */
async function load(producer, topic, total) {
  const started = performance.now();
  const queued = [];
  let produced = 0;
  let inFlight = null;
  const pump = () => {
    if (inFlight || queued.length === 0) return;
    const batch = queued.splice(0, 500);
    const messages = batch.map(({ key, value, headers }) => ({ key, value, headers }));
    inFlight = producer.send({ topic, acks: -1, messages }).then(() => {
      produced += messages.length;
      const now = performance.now();
      if (measuring) for (const m of batch) measuring.push(now - m.due);
      inFlight = null;
      pump();
    });
  };
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const due = started + (i * 1000) / rate;
    const value = envelope(i);
    if (measuring) sentAt.set(JSON.parse(value).data.uid, due);
    queued.push({ due, key: `conversation:app1:${i % 50}`, value, headers: { type: 'UserCreated', appId: 'app1', schemaVersion: '1', keyId: 'k' } });
    pump();
  }
  while (produced < total) await sleep(20);
}

const results = new Map(chosen.map((v) => [v.name, []]));
for (let round = 1; round <= rounds; round++) {
  for (const variant of chosen) {
    const result = await measure(variant);
    results.get(variant.name).push(result);
    const perMessage = result.requests.map(([name, t]) => `${name} ${t.map(([api, n]) => `${api} ${(n / (rate * seconds)).toFixed(2)}`).join(' ')}`).join('; ');
    const totalRequests = result.requests.reduce((s, [, t]) => s + t.reduce((a, [, n]) => a + n, 0), 0) / (rate * seconds);
    result.perRequest = result.cpuPerMessage / totalRequests;
    console.log(
      `round ${round} ${variant.name}: broker idle ${result.idleRate.toFixed(1)} ms/s; per message ${result.cpuPerMessage.toFixed(3)} ms (idle share ${result.idlePerMessage.toFixed(3)}), window ${result.window.toFixed(1)} s; requests/msg ${totalRequests.toFixed(2)}, ms/request ${result.perRequest.toFixed(3)}${result.behind.length ? `; BEHIND: ${result.behind.join(',')}` : ''}`,
    );
    console.log(`  latency ms: ${result.latency}`);
    console.log(`  ${perMessage}`);
    console.log(`  broker threads ms/msg: ${result.threads.map(([kind, ms]) => `${kind} ${ms.toFixed(3)}`).join(', ')}`);
  }
}
console.log(`\n${rate} msg/s, ${seconds} s, handler ${applyMs} ms; mean over ${rounds} rounds:`);
for (const [name, list] of results) {
  const mean = (f) => list.reduce((s, r) => s + f(r), 0) / list.length;
  const median = (f) => percentile(list.map(f).sort((a, b) => a - b), 50);
  console.log(
    `  ${name.padEnd(14)} idle ${mean((r) => r.idleRate).toFixed(1).padStart(6)} ms/s (median ${median((r) => r.idleRate).toFixed(1)})   per message ${mean((r) => r.cpuPerMessage).toFixed(3)} ms (idle share ${mean((r) => r.idlePerMessage).toFixed(3)})   per request ${mean((r) => r.perRequest).toFixed(3)} ms (median ${median((r) => r.perRequest).toFixed(3)})`,
  );
}
await rm(brokerDir, { recursive: true, force: true });
