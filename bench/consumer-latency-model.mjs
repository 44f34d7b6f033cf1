// node bench/consumer-latency-model.mjs [rate] [applyMs] [seconds] [kafka dist] — what a projection
// consumer's own waits add to "visible" (ADR 0067), apart from the stack's CPU: the real EventConsumer
// (packages/kafka, or another build's dist given as the fourth argument) on the real broker (the
// devstack's, KAFKA_PORT), a topic of 3 partitions like chat.messages.events, an open loop of `rate`
// events/s (keys at random), and a handler that takes `applyMs` (±50 %) per call like a projection
// run. Prints p50/p99/max from each event's send to the end of the handler call that applied it, then
// an offset commit's round trip on the broker (what a batch that waited for its commit stalled for).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';
import { percentile } from './percentile.mjs';

const [rateArg = '100', applyArg = '10', secondsArg = '20', dist = new URL('../packages/kafka/dist', import.meta.url).pathname] = process.argv.slice(2);
const { testEnvelope } = await import(pathToFileURL(new URL('../packages/eventsourcing/dist/testing.js', import.meta.url).pathname).href);
const { EventConsumer, createKafka, ensureTopics, loadKafkaSecurity } = await import(pathToFileURL(`${dist}/index.js`).href);
const rate = Number(rateArg);
const applyMs = Number(applyArg);
const seconds = Number(secondsArg);

const infra = await startInfrastructure({ parts: ['kafka'], log: () => undefined });
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error: (...a) => console.error(...a), fatal() {}, child: () => silent, level: 'silent' };
const logger = silent;
const kafka = createKafka('consumer-latency-model', infra.kafkaBrokers.split(','), logger, loadKafkaSecurity(process.env));
const run = randomBytes(4).toString('hex');
const topic = `model.latency.${run}`;
await ensureTopics(kafka, [topic], 3);
const producer = kafka.producer();
await producer.connect();

const sentAt = new Map();
const latencies = [];
const consumer = new EventConsumer(kafka, {
  groupId: `model-latency-${run}`,
  topics: [topic],
  logger,
  handler: async (events) => {
    await sleep(applyMs * (0.5 + Math.random()));
    const now = performance.now();
    for (const event of events) {
      const sent = sentAt.get(event.data.uid);
      if (sent !== undefined) latencies.push(now - sent);
    }
  },
});
await consumer.start();
while (!consumer.joined) await sleep(50);
await sleep(2_000);

const envelope = (uid) => testEnvelope('UserCreated', `user:app1:${uid}`, 1, { uid, name: uid, role: 'default', tags: [], createdAt: 1 });
const start = performance.now();
const total = rate * seconds;
const sends = [];
for (let i = 0; i < total; i++) {
  const due = start + (i * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await sleep(wait);
  const uid = `u${i}`;
  sentAt.set(uid, due);
  sends.push(producer.send({ topic, messages: [{ key: randomBytes(4).toString('hex'), value: JSON.stringify(envelope(uid)) }] }));
}
await Promise.all(sends);
const deadline = performance.now() + 10_000;
while (latencies.length < total && performance.now() < deadline) await sleep(100);
latencies.sort((a, b) => a - b);
const mean = latencies.reduce((s, v) => s + v, 0) / latencies.length;
console.log(
  `${rate}/s, handler ${applyMs} ms ±50 %, ${seconds} s, ${dist}: ${latencies.length}/${total} applied; send → applied p50 ${percentile(latencies, 50).toFixed(1)} p99 ${percentile(latencies, 99).toFixed(1)} max ${latencies.at(-1)?.toFixed(1)} mean ${mean.toFixed(1)} ms`,
);
await consumer.stop();

// What a batch that waited for its commit held the fetch loop for: an offset commit's round trip on
// this broker now (a member of its own group, 40 commits 100 ms apart).
const member = kafka.consumer({ groupId: `model-commit-${run}` });
await member.connect();
await member.subscribe({ topics: [topic], fromBeginning: false });
let joined = false;
member.on(member.events.GROUP_JOIN, () => (joined = true));
await member.run({ autoCommit: false, eachBatch: async () => undefined });
while (!joined) await sleep(50);
const trips = [];
for (let i = 0; i < 40; i++) {
  const started = performance.now();
  await member.commitOffsets([{ topic, partition: i % 3, offset: '1' }]);
  trips.push(performance.now() - started);
  await sleep(100);
}
trips.sort((a, b) => a - b);
console.log(`offset commit round trip: p50 ${percentile(trips, 50).toFixed(1)} p99 ${percentile(trips, 99).toFixed(1)} max ${trips.at(-1)?.toFixed(1)} ms (40 commits)`);
await member.disconnect();
await producer.disconnect();
await infra.stop();
process.exit(0);
