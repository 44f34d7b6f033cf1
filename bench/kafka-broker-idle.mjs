// node bench/kafka-broker-idle.mjs — what a broker with no client spends on its own timers, under broker
// settings taken in turn (ADR 0122). For each round and variant: a fresh broker of its own (KAFKA_PORT,
// KAFKA_CONTROLLER_PORT; bench/benchBroker.mjs), left BENCH_SETTLE_SECONDS after it answers, then its CPU
// from /proc over BENCH_IDLE_SECONDS, in all and by thread (the 15-character names /proc keeps, digits
// folded), then stopped. Variants alternate (A B B A …), so a drift in the machine's load hits each alike.
// Variants: `main` (infra/kafka/server.properties and the devstack's JVM flags as they are) and `s9` (the
// settings session 9 left: a KRaft no-op record every 5 s, a broker heartbeat every 2 s, JVM perf data on).
// `j17`, `j25`, `j25-coh`, `j25-tiered`, `j25-serial`: the JDK and its flags (benchBroker.mjs JDK_VARIANTS, ADR 0133).
// `held-50ms`, `held-1s`: `main` with one idle kafkajs consumer group whose empty fetch is held that long (ADR 0134).
// Knobs: BENCH_ROUNDS (4), BENCH_SETTLE_SECONDS (25), BENCH_IDLE_SECONDS (40), BENCH_VARIANTS (main,s9).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JDK_VARIANTS, MAIN_JVM, startBroker, stopBroker } from './benchBroker.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { Kafka, logLevel } = await import(pathToFileURL(join(ROOT, 'packages/kafka/node_modules/kafkajs/index.js')).href);
const port = Number(process.env.KAFKA_PORT ?? 19492);
const controllerPort = Number(process.env.KAFKA_CONTROLLER_PORT ?? port + 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const settleS = Number(process.env.BENCH_SETTLE_SECONDS ?? 25);
const idleS = Number(process.env.BENCH_IDLE_SECONDS ?? 40);

const S9 = {
  jvm: ['-Xms256m', '-Xmx512m', '-XX:+UseG1GC', '-XX:TieredStopAtLevel=1'],
  props: { 'metadata.max.idle.interval.ms': '5000', 'broker.heartbeat.interval.ms': '2000', 'broker.session.timeout.ms': '9000' },
};
/** The broker as `main` with one idle consumer group on an empty 3-partition topic, its fetch held 50 ms or 1 s (ADR 0134: the bench's arrivals probe). */
const HELD = { 'held-50ms': 50, 'held-1s': 1_000 };
const VARIANTS = { main: { jvm: MAIN_JVM, props: {} }, s9: S9, ...JDK_VARIANTS, ...Object.fromEntries(Object.entries(HELD).map(([name, heldMs]) => [name, { jvm: MAIN_JVM, props: {}, heldMs }])) };
const names = (process.env.BENCH_VARIANTS ?? 'main,s9').split(',');
for (const name of names) if (!VARIANTS[name]) throw new Error(`no variant ${name}`);

/** CPU ms so far of each of the process's threads, by name with its digits folded. */
function threadCpu(pid) {
  const byName = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+/g, '#');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return byName;
}

const admin = () => new Kafka({ clientId: 'broker-idle', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING }).admin();
/** A consumer group of one on an empty topic: nothing but its held fetches and heartbeats. */
async function idleConsumer(heldMs) {
  const kafka = new Kafka({ clientId: 'broker-idle-consumer', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING });
  const setup = kafka.admin();
  await setup.connect();
  await setup.createTopics({ topics: [{ topic: 'idle', numPartitions: 3 }], waitForLeaders: true });
  await setup.disconnect();
  const consumer = kafka.consumer({ groupId: 'broker-idle', maxWaitTimeInMs: heldMs });
  const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
  await consumer.connect();
  await consumer.subscribe({ topic: 'idle' });
  await consumer.run({ eachBatch: async () => undefined });
  await joined;
  return consumer;
}

const results = new Map(names.map((n) => [n, []]));
const starts = new Map(names.map((n) => [n, []]));
const order = Array.from({ length: rounds * names.length }, (_, i) => names[((i + 1) >> 1) % names.length]);
console.log(`broker idle: ${order.join(' ')}; ${settleS} s settle, ${idleS} s measured`);
for (const [i, name] of order.entries()) {
  const variant = VARIANTS[name];
  const child = await startBroker({ root: ROOT, port, controllerPort, dir: join(ROOT, '.infra', 'kafka', `bench-idle-${port}`), admin: admin(), ...variant });
  let consumer = null;
  try {
    if (variant.heldMs) consumer = await idleConsumer(variant.heldMs);
    await sleep(settleS * 1000);
    const from = threadCpu(child.pid);
    const started = performance.now();
    await sleep(idleS * 1000);
    const to = threadCpu(child.pid);
    const seconds = (performance.now() - started) / 1000;
    const byThread = [...to].map(([thread, ms]) => [thread, (ms - (from.get(thread) ?? 0)) / seconds]).sort((a, b) => b[1] - a[1]);
    const total = byThread.reduce((sum, [, rate]) => sum + rate, 0);
    results.get(name).push(total);
    starts.get(name).push(child.startMs);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`round ${i + 1} ${name} (load ${load}; answered ${(child.startMs / 1000).toFixed(2)} s after spawn): ${total.toFixed(2)} ms/s; ${byThread.filter(([, r]) => r >= 0.2).map(([t, r]) => `${t} ${r.toFixed(2)}`).join(', ')}`);
  } finally {
    await consumer?.disconnect();
    await stopBroker(child);
  }
}
const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
console.log(`\nmean idle ms/s: ${names.map((n) => `${n} ${mean(results.get(n)).toFixed(2)}`).join(', ')}; ${names[0]} ÷ ${names[1] ?? names[0]} ${(mean(results.get(names[0])) / mean(results.get(names[1] ?? names[0]))).toFixed(2)}`);
console.log(`mean start (spawn → topics listed) s: ${names.map((n) => `${n} ${(mean(starts.get(n)) / 1000).toFixed(2)}`).join(', ')}`);
process.exit(0);
