// node bench/webhook-deliveries-cost.mjs <webhooks dist dir> [<another> …] — the CPU the delivery
// process spends per webhook delivery, in this process, without Kafka or the store: each build's
// `Deliveries` and `Dispatcher` (services/webhooks/dist and the @chat/delivery it resolves, or a copy of
// another build's) plan runs of RUN_EVENTS `MessageSent` events over 20 conversations, each to FANOUT
// webhooks (bench/webhooks.mjs's throughput mix), POST them signed to a receiver in a child process
// (its CPU not counted) and pack them as the delivery log stores them (its insert answered at once).
// Builds alternate for ROUNDS rounds of RUNS runs; it prints CPU µs per delivery per build and round,
// the median per build and each median ÷ the first's, and the deliveries per CPU second that makes.
// Knobs: RUNS (40), ROUNDS (6), RUN_EVENTS (30), FANOUT (10).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { forkOkReceiver } from './okReceiver.mjs';

const RUNS = Number(process.env.RUNS ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const RUN_EVENTS = Number(process.env.RUN_EVENTS ?? 30);
const FANOUT = Number(process.env.FANOUT ?? 10);

const dirs = process.argv.slice(2);
if (dirs.length === 0) throw new Error('usage: node bench/webhook-deliveries-cost.mjs <webhooks dist dir> [<another> …]');
const receiver = await forkOkReceiver();
const { port } = receiver;
const url = `http://127.0.0.1:${port}/hook`;
const silent = { error() {}, warn() {}, info() {}, debug() {} };

async function buildOf(dir) {
  const require = createRequire(resolve(dir, 'index.js'));
  const load = (path) => import(pathToFileURL(resolve(dir, path)).href);
  const [{ Deliveries }, { DeliveryLog }, delivery, { testEnvelope }] = await Promise.all([
    load('app/deliveries.js'),
    load('adapters/deliveryLog.js'),
    import(pathToFileURL(require.resolve('@chat/delivery')).href),
    import(pathToFileURL(require.resolve('@chat/eventsourcing/testing')).href),
  ]);
  const secret = delivery.newWebhookSecret();
  const endpoints = Array.from({ length: FANOUT }, (_, i) => ({
    webhook: { webhookId: `hook-${i}`, url, enabled: true, triggers: ['message_sent'], retryOnFailure: true },
    secret,
  }));
  const byId = new Map(endpoints.map((e) => [e.webhook.webhookId, e]));
  let stored = 0;
  // The log's own packing of each document runs; the store answers at once.
  const log = new DeliveryLog({
    insert: (documents) => {
      stored += documents.length;
      JSON.stringify(documents);
      return Promise.resolve([]);
    },
    writeGuarded: () => Promise.resolve([]),
    findMany: () => Promise.resolve(new Map()),
  });
  const sender = new delivery.OutboundHttp({ timeoutMs: 10_000, policy: delivery.privateAddressPolicy('127.0.0.0/8'), maxSocketsPerHost: 8 });
  const dispatcher = new delivery.Dispatcher({ concurrencyPerEndpoint: 8, attempt: (d) => deliveries.attempt(d), onError: (error) => console.error(error) });
  const deliveries = new Deliveries({
    log,
    runner: { run: () => Promise.resolve() },
    directory: {
      subscribers: () => Promise.resolve(endpoints),
      deliverable: (_appId, webhookId) => Promise.resolve(byId.get(webhookId) ?? null),
      markGone: () => Promise.resolve(),
    },
    sender,
    retry: { baseMs: 5_000, maxMs: 60_000, windowMs: 600_000 },
    region: 'us',
    logger: silent,
    firstAttemptWaitMs: 5_000,
  });
  dispatcher.start();
  let n = 0;
  const runOf = () =>
    Array.from({ length: RUN_EVENTS }, () => {
      n += 1;
      const conversation = `c${n % 20}`;
      return testEnvelope('MessageSent', `conversation:app1:${conversation}`, n, {
        id: `${dir}-${n}`,
        conversationId: conversation,
        sender: 'u1',
        receiver: 'u2',
        receiverType: 'user',
        category: 'message',
        type: 'text',
        data: { text: `message ${n} with a few words`, entities: { sender: { entity: { uid: 'u1', name: 'U1' } }, receiver: { entity: { uid: 'u2', name: 'U2' } } } },
        sentAt: Math.floor(Date.now() / 1000),
      });
    });
  const run = async () => {
    const planned = await deliveries.plan(runOf());
    for (const d of planned) dispatcher.enqueue(d);
    await deliveries.secure(planned);
  };
  return { dir, run, perDelivery: [], stored: () => stored, close: () => sender.close() };
}

const builds = [];
for (const dir of dirs) builds.push(await buildOf(dir));
for (const build of builds) for (let i = 0; i < 5; i++) await build.run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const before = build.stored();
    const from = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) await build.run();
    const used = process.cpuUsage(from);
    const made = build.stored() - before;
    if (made !== RUNS * RUN_EVENTS * FANOUT) throw new Error(`${build.dir}: ${made} deliveries stored, not ${RUNS * RUN_EVENTS * FANOUT}`);
    build.perDelivery.push((used.user + used.system) / made);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(builds[0].perDelivery);
for (const build of builds) {
  const m = median(build.perDelivery);
  console.log(
    `${build.dir}: ${build.perDelivery.map((v) => v.toFixed(1)).join(', ')} µs/delivery; median ${m.toFixed(1)} (${(m / base).toFixed(2)}×), ${Math.round(1e6 / m)} deliveries per CPU second`,
  );
}
for (const build of builds) build.close();
receiver.stop();
