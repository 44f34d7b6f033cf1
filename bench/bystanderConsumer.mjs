// The consumer half of bench/bystander-cost.mjs, a process of its own so its CPU is its own: one
// EventConsumer of the given build (argv[2]: a checkout whose packages/kafka/dist is compiled) on a topic,
// with a selector that skips every record (what calls, webhooks, audit… do with a plain message), a
// handler that is never called; argv[6], when given, its `gather` option (JSON). Tells its parent over IPC how many records the selector saw and how many fetches it made.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, port, topic, groupId, gather] = process.argv.slice(2);
const { EventConsumer } = await import(pathToFileURL(join(root, 'packages/kafka/dist/index.js')).href);
const { Kafka, logLevel } = await import(pathToFileURL(join(root, 'packages/kafka/node_modules/kafkajs/index.js')).href);

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {}, child: () => silent, level: 'silent' };
const kafka = new Kafka({ clientId: 'bystander', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING });
let seen = 0;
let fetches = 0;
// Fetch requests counted from kafkajs's instrumentation (the figure the machine's load does not move).
const consumerOf = kafka.consumer.bind(kafka);
kafka.consumer = (config) => {
  const consumer = consumerOf(config);
  consumer.on(consumer.events.REQUEST, ({ payload }) => {
    if (payload.apiName === 'Fetch') fetches += 1;
  });
  return consumer;
};
const consumer = new EventConsumer(kafka, {
  groupId,
  topics: [topic],
  logger: silent,
  ...(gather ? { gather: JSON.parse(gather) } : {}),
  handler: () => Promise.reject(new Error('a skip-all selector hands nothing over')),
  select: (records) => {
    seen += records.length;
    return records.map(() => false);
  },
});
await consumer.start();
while (!consumer.joined) await new Promise((resolve) => setTimeout(resolve, 50));
process.send?.({ ready: true });
const timer = setInterval(() => process.send?.({ seen, fetches }), 100);
process.on('message', async (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  await consumer.stop();
  process.exit(0);
});
