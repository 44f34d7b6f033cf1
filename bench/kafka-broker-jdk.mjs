// node bench/kafka-broker-jdk.mjs — the broker's CPU per request under each JDK and its flags (ADR 0133), with
// a fixed request count so that the figure does not move with the producer's batching (kafka-broker-cost.mjs's
// requests per message moved 0.7–6.8 between rounds of one variant on a loaded machine). For each round and
// variant: a fresh broker of its own (KAFKA_PORT, KAFKA_CONTROLLER_PORT; bench/benchBroker.mjs), a 3-partition
// topic, one consumer group (kafkajs, 1 s idle hold: answered at each record) and a producer sending one
// ~700-byte record at a time (idempotent, acks all, each send awaited): BENCH_WARMUP records to warm the JIT,
// then BENCH_RECORDS records measured. Prints the broker's CPU (/proc, all threads, so JIT and GC count) per
// record — one Produce and about one Fetch each — its start time (spawn → topics listed) and the rounds' means.
// Variants alternate (A B B A …). Knobs: BENCH_ROUNDS (4), BENCH_RECORDS (3000), BENCH_WARMUP (3000),
// BENCH_VARIANTS (j17,j25; also j25-coh, j25-tiered, j25-serial, j17-tiered).
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JDK_VARIANTS as VARIANTS, startBroker, stopBroker } from './benchBroker.mjs';
import { processCpuMs } from './processCpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { Kafka, logLevel } = await import(pathToFileURL(join(ROOT, 'packages/kafka/node_modules/kafkajs/index.js')).href);
const port = Number(process.env.KAFKA_PORT ?? 19492);
const controllerPort = Number(process.env.KAFKA_CONTROLLER_PORT ?? port + 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const records = Number(process.env.BENCH_RECORDS ?? 3000);
const warmup = Number(process.env.BENCH_WARMUP ?? 3000);
const dir = join(ROOT, '.infra', 'kafka', `bench-jdk-${port}`);

const names = (process.env.BENCH_VARIANTS ?? 'j17,j25').split(',');
for (const name of names) if (!VARIANTS[name]) throw new Error(`no variant ${name}`);

const kafka = () => new Kafka({ clientId: 'broker-jdk', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 8 } });
const value = JSON.stringify({ type: 'MessageSent', data: { text: 'x'.repeat(600) } });

async function measure(variant) {
  const broker = await startBroker({ root: ROOT, port, controllerPort, dir, admin: kafka().admin(), props: {}, ...variant });
  const topic = 'chat.messages.events';
  const client = kafka();
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  await admin.disconnect();
  let received = 0;
  const consumer = client.consumer({ groupId: 'bench-jdk', maxWaitTimeInMs: 1_000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
  await consumer.run({ eachBatch: async ({ batch }) => void (received += batch.messages.length) });
  await joined;
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const send = async (n) => {
    for (let i = 0; i < n; i++) await producer.send({ topic, acks: -1, messages: [{ key: `c${i % 50}`, value, headers: { type: 'MessageSent' } }] });
  };
  await send(warmup);
  while (received < warmup) await sleep(20);
  await sleep(1_000);
  const from = processCpuMs(broker.pid);
  const started = performance.now();
  await send(records);
  while (received < warmup + records) await sleep(5);
  const cpu = processCpuMs(broker.pid) - from;
  const seconds = (performance.now() - started) / 1000;
  await producer.disconnect();
  await consumer.disconnect();
  await stopBroker(broker);
  return { perRecord: cpu / records, rate: records / seconds, startMs: broker.startMs };
}

const results = new Map(names.map((n) => [n, []]));
const order = Array.from({ length: rounds * names.length }, (_, i) => names[((i + 1) >> 1) % names.length]);
console.log(`broker per request by JDK: ${order.join(' ')}; ${warmup} records warm-up, ${records} measured`);
for (const [i, name] of order.entries()) {
  const result = await measure(VARIANTS[name]);
  results.get(name).push(result);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`round ${i + 1} ${name} (load ${load}): ${result.perRecord.toFixed(3)} ms CPU per record, ${result.rate.toFixed(0)} records/s, started in ${(result.startMs / 1000).toFixed(2)} s`);
}
await rm(dir, { recursive: true, force: true });
const mean = (list, f) => list.reduce((a, r) => a + f(r), 0) / list.length;
console.log('');
for (const name of names) {
  const list = results.get(name);
  console.log(`${name.padEnd(12)} ${mean(list, (r) => r.perRecord).toFixed(3)} ms per record (rounds ${list.map((r) => r.perRecord.toFixed(3)).join(', ')}); start ${(mean(list, (r) => r.startMs) / 1000).toFixed(2)} s`);
}
if (names.length > 1) console.log(`${names[1]} ÷ ${names[0]}: ${(mean(results.get(names[1]), (r) => r.perRecord) / mean(results.get(names[0]), (r) => r.perRecord)).toFixed(2)}`);
process.exit(0);
