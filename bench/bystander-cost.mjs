// node bench/bystander-cost.mjs [<checkout> …] — what a consumer costs per record it skips (issue 23,
// ADR 0083): calls, webhooks, notifications, audit, realtime's memberships… read every record of the
// messages topic and keep none of a plain message. A broker of the bench's own (KAFKA_PORT,
// KAFKA_CONTROLLER_PORT; KAFKA_LIBS: the jars, default this checkout's .infra/kafka/libs), a 3-partition
// topic, an outbox-shaped producer (one produce in flight, what queued meanwhile in the next; idempotent,
// acks all, ~700-byte records with the four headers) at BENCH_RATE records/s for BENCH_SECONDS, and one
// consumer process (bench/bystanderConsumer.mjs: an EventConsumer whose selector skips every record) of
// each checkout given (default: this one), taken in turn, BENCH_ROUNDS times; "none" (no consumer) is
// the broker's own baseline. Prints per record the consumer's CPU and the broker's (/proc, all threads,
// from the first record sent until the consumer has seen the last), each less its idle rate over the
// window, and per round so the machine's drift shows; and the consumer's fetch requests per record, which
// the machine's load moves least.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBroker, stopBroker } from './benchBroker.mjs';
import { percentile } from './percentile.mjs';
import { processCpuMs } from './processCpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { Kafka, logLevel } = await import(pathToFileURL(join(ROOT, 'packages/kafka/node_modules/kafkajs/index.js')).href);
const { ensureTopics } = await import(pathToFileURL(join(ROOT, 'packages/kafka/dist/index.js')).href);

const port = Number(process.env.KAFKA_PORT ?? 19592);
const controllerPort = Number(process.env.KAFKA_CONTROLLER_PORT ?? port + 1);
const rate = Number(process.env.BENCH_RATE ?? 300);
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 4);
// A checkout `dir`, or `dir@minBytes/maxWaitMs`: its consumer with that `gather` option.
const checkouts = process.argv.length > 2 ? process.argv.slice(2) : [ROOT];
const variants = [
  { name: 'none' },
  ...checkouts.map((arg) => {
    const [dir, gather] = arg.split('@');
    const [minBytes, maxWaitMs] = (gather ?? '').split('/').map(Number);
    return { name: arg, root: resolve(dir), ...(gather ? { gather: JSON.stringify({ minBytes, maxWaitMs }) } : {}) };
  }),
];
const topic = 'chat.messages.events';
const brokerDir = join(ROOT, '.infra', 'kafka', `bench-bystander-${port}`);
const kafka = new Kafka({ clientId: 'bystander-bench', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING });

/** A consumer process of `root`'s build, joined to its group (one group per checkout, resumed each round). */
async function startConsumer({ root, gather }, index) {
  const child = fork(join(ROOT, 'bench', 'bystanderConsumer.mjs'), [root, String(port), topic, `bench.bystander.${index}`, ...(gather ? [gather] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // BENCH_CPU_PROF=<dir>: a V8 profile of each consumer process there.
    execArgv: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
  });
  const state = { child, seen: 0, fetches: 0 };
  child.on('message', (message) => {
    if (typeof message.seen === 'number') {
      state.seen = message.seen;
      state.fetches = message.fetches;
    }
  });
  await new Promise((ready, failed) => {
    child.on('message', (message) => message.ready && ready());
    child.on('exit', (code) => failed(new Error(`consumer of ${root} exited (${code})`)));
  });
  return state;
}

async function stopConsumer(state) {
  const exited = new Promise((done) => state.child.on('exit', done));
  state.child.send('stop');
  await exited;
}

/** Waits until the consumer's count stops moving for `quietMs` (it has read what was there). */
async function settled(state, quietMs = 1_500) {
  let last = -1;
  while (state.seen !== last) {
    last = state.seen;
    await sleep(quietMs);
  }
}

function envelope(i) {
  const id = randomBytes(8).toString('hex');
  return JSON.stringify({ id, type: 'MessageSent', schemaVersion: 1, streamId: `conversation:app1:${i % 50}`, version: i, occurredAt: new Date().toISOString(), data: { id, text: 'x'.repeat(400), sender: `u${i % 100}`, receiver: `u${(i + 1) % 100}` } });
}

/** An outbox-shaped open loop: one produce in flight, whatever queued meanwhile goes in the next. */
async function load(producer, total) {
  const started = performance.now();
  const queued = [];
  let produced = 0;
  let inFlight = null;
  const pump = () => {
    if (inFlight || queued.length === 0) return;
    const messages = queued.splice(0, 500);
    inFlight = producer.send({ topic, acks: -1, messages }).then(() => {
      produced += messages.length;
      inFlight = null;
      pump();
    });
  };
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    queued.push({ key: `conversation:app1:${i % 50}`, value: envelope(i), headers: { type: 'MessageSent', appId: 'app1', schemaVersion: '1', keyId: 'k' } });
    pump();
  }
  while (produced < total) await sleep(10);
}

const broker = await startBroker({ root: ROOT, port, controllerPort, dir: brokerDir, admin: kafka.admin(), ...(process.env.KAFKA_LIBS ? { libs: process.env.KAFKA_LIBS } : {}) });
const results = new Map(variants.map((v) => [v.name, []]));
try {
  await ensureTopics(kafka, [topic], 3);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  // Warm the broker's JIT (the stack's broker has run a while when anything is measured).
  await load(producer, rate * 5);
  for (let round = 0; round <= rounds; round++) {
    for (const [index, variant] of variants.entries()) {
      const consumer = variant.root ? await startConsumer(variant, index) : null;
      if (consumer) await settled(consumer);
      const idleFrom = { broker: processCpuMs(broker.pid), consumer: processCpuMs(consumer?.child.pid), at: performance.now() };
      await sleep(idleSeconds * 1_000);
      const idleSpan = (performance.now() - idleFrom.at) / 1000;
      const idle = { broker: (processCpuMs(broker.pid) - idleFrom.broker) / idleSpan, consumer: (processCpuMs(consumer?.child.pid) - idleFrom.consumer) / idleSpan };
      const total = rate * seconds;
      const seenFrom = consumer?.seen ?? 0;
      const fetchesFrom = consumer?.fetches ?? 0;
      const from = { broker: processCpuMs(broker.pid), consumer: processCpuMs(consumer?.child.pid), at: performance.now() };
      await load(producer, total);
      const deadline = performance.now() + 20_000;
      while (consumer && consumer.seen - seenFrom < total && performance.now() < deadline) await sleep(20);
      const span = (performance.now() - from.at) / 1000;
      const perRecord = (process, idleRate) => (processCpuMs(process === 'broker' ? broker.pid : consumer?.child.pid) - from[process] - idleRate * span) / total;
      const result = { broker: perRecord('broker', idle.broker), consumer: consumer ? perRecord('consumer', idle.consumer) : NaN, fetches: consumer ? (consumer.fetches - fetchesFrom) / total : NaN, idle, behind: consumer ? total - (consumer.seen - seenFrom) : 0 };
      if (consumer) await stopConsumer(consumer);
      // Round 0 warms each build's code paths and group; it is printed, not counted.
      if (round > 0) results.get(variant.name).push(result);
      console.log(
        `round ${round} ${variant.name}: per record fetches ${result.fetches.toFixed(3)}, consumer ${result.consumer.toFixed(4)} ms, broker ${result.broker.toFixed(4)} ms; idle consumer ${idle.consumer.toFixed(1)} ms/s, broker ${idle.broker.toFixed(1)} ms/s${result.behind > 0 ? `; ${result.behind} NOT SEEN` : ''}`,
      );
    }
  }
  await producer.disconnect();
} finally {
  await stopBroker(broker);
  await rm(brokerDir, { recursive: true, force: true });
}
console.log(`\n${rate} records/s for ${seconds} s, ${rounds} rounds; median per record (CPU less the process's idle rate):`);
const median = (list) => (list.length ? percentile([...list].sort((a, b) => a - b), 50) : NaN);
const baseline = median(results.get('none').map((r) => r.broker));
for (const [name, list] of results) {
  const broker = median(list.map((r) => r.broker));
  console.log(
    `  ${name.padEnd(34)} fetches ${median(list.map((r) => r.fetches)).toFixed(3)}   consumer ${median(list.map((r) => r.consumer)).toFixed(4)} ms   broker ${broker.toFixed(4)} ms (this consumer's share ${(broker - baseline).toFixed(4)})   idle consumer ${median(list.map((r) => r.idle.consumer)).toFixed(1)} ms/s`,
  );
}
