// node bench/replicas.mjs — one replica of every service against two, in the same run, on the same
// infrastructure (topics of KAFKA_PARTITIONS=6 partitions): 
//  1. send throughput: 20 clients (one sender→receiver pair each) send as fast as answers come;
//  2. visible latency at a fixed offered rate (open loop, BENCH_RATE msg/s): from the send's start until
//     the receiver's conversation shows it as its last message (polled every 20 ms), p50/p99;
//  3. with two replicas only, the rebalance pause: at the same rate, one conversations replica leaves
//     (SIGTERM: its consumer leaves the group, which rebalances) and later comes back (joins again, a
//     second rebalance); the pause is the worst visible latency in the 15 s after each change, less the
//     steady p50.
// Errors (any non-200) are counted. The machine has 2 cores shared by everything, so two replicas are
// not expected to be faster; the point is that nothing is lost or refused. BENCH_DURATION (s per step).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerShutdown, startInfrastructure, startServices } from '@chat/devstack';
import { createGatewayClient } from './httpClient.mjs';
import { percentile } from './stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 15);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const CLIENTS = 20;
const POLL_MS = 20;

let current = null;
const infra = await startInfrastructure({ freshKafkaData: true });
registerShutdown(async () => {
  await current?.stop();
  await infra.stop();
});

async function stackOf(replicas) {
  const services = await startServices({
    ...infra,
    ports: 'ephemeral',
    replicas,
    databaseSuffix: `rep${replicas}${randomBytes(3).toString('hex')}`,
    extraEnv: { LOG_LEVEL: 'warn', KAFKA_PARTITIONS: '6' },
  });
  current = services;
  const client = createGatewayClient(services.gatewayUrl, { timeoutMs: 20_000 });
  const created = await client.request('POST', '/apps', { key: services.managementKey, secret: services.managementSecret }, { name: 'bench', region: 'us' });
  const chat = { appid: created.body.data.id, apikey: Object.values(created.body.data.apiKeys).find((k) => k.scope === 'fullAccess').apiKey };
  const as = (uid) => ({ ...chat, onbehalfof: uid });
  const pairs = Array.from({ length: CLIENTS }, (_, i) => ({ sender: `s${i}`, receiver: `r${i}` }));
  for (const { sender, receiver } of pairs) for (const uid of [sender, receiver]) await client.request('POST', '/v3/users', chat, { uid, name: uid });
  for (const { sender, receiver } of pairs) {
    while ((await client.request('POST', '/v3/messages', as(sender), { receiver, receiverType: 'user', data: { text: 'warm-up' } })).status !== 200) await sleep(50);
  }
  // The second stack's new consumer groups first replay the first stack's events (same topics): measure
  // only once every warm-up message is visible, i.e. the consumers have caught up.
  for (const { sender, receiver } of pairs) {
    while ((await client.request('GET', `/v3/users/${sender}/conversation`, as(receiver))).status !== 200) await sleep(100);
  }
  return { services, client, as, pairs };
}

async function throughput({ client, as, pairs }) {
  let sent = 0;
  let errors = 0;
  const deadline = performance.now() + DURATION_S * 1000;
  await Promise.all(
    pairs.map(async ({ sender, receiver }) => {
      while (performance.now() < deadline) {
        const answer = await client.request('POST', '/v3/messages', as(sender), { receiver, receiverType: 'user', data: { text: 'load' } });
        if (answer.status === 200) sent += 1;
        else errors += 1;
      }
    }),
  );
  return { sendsPerSecond: +(sent / DURATION_S).toFixed(1), errors };
}

/** Open loop at RATE msg/s for `seconds`; `during(t)` may act at times into the run. Answers each message's visible latency and when it was sent. */
async function visible({ client, as, pairs }, seconds, during = async () => undefined) {
  const samples = [];
  let errors = 0;
  /** Non-200 answers by status: `send <status>` once per send, `read <status>` per poll. */
  const refusals = {};
  const refused = (what, status) => (refusals[`${what} ${status}`] = (refusals[`${what} ${status}`] ?? 0) + 1);
  const started = performance.now();
  const watches = [];
  const action = during(started);
  for (let i = 0; performance.now() - started < seconds * 1000; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > performance.now()) await sleep(due - performance.now());
    const { sender, receiver } = pairs[i % pairs.length];
    watches.push(
      (async () => {
        const at = performance.now();
        const sent = await client.request('POST', '/v3/messages', as(sender), { receiver, receiverType: 'user', data: { text: `v${i}` } });
        if (sent.status !== 200) {
          errors += 1;
          refused('send', sent.status);
          return;
        }
        for (;;) {
          const read = await client.request('GET', `/v3/users/${sender}/conversation`, as(receiver));
          if (read.status === 200 && Number(read.body.data.lastMessage?.id) >= Number(sent.body.data.id)) break;
          if (read.status !== 200 && read.status !== 404) refused('read', read.status);
          await sleep(POLL_MS);
        }
        samples.push({ at: at - started, ms: performance.now() - at });
      })(),
    );
  }
  await Promise.all(watches);
  await action;
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return { samples, errors, refusals, p50: +percentile(sorted, 50).toFixed(0), p99: +percentile(sorted, 99).toFixed(0) };
}

const results = {};
for (const replicas of [1, 2]) {
  const stack = await stackOf(replicas);
  const sends = await throughput(stack);
  const steady = await visible(stack, DURATION_S);
  const row = { ...sends, visibleP50Ms: steady.p50, visibleP99Ms: steady.p99, sendErrors: steady.errors, refusals: steady.refusals };
  if (replicas === 2) {
    const victim = stack.services.instances.find((i) => i.service === 'conversations' && i.replica === 2);
    const changes = {};
    const run = await visible(stack, 40, async (t0) => {
      await sleep(5_000);
      changes.leave = performance.now() - t0;
      await victim.kill('SIGTERM');
      await sleep(15_000);
      changes.join = performance.now() - t0;
      await victim.restart();
    });
    const worstAfter = (from) => Math.max(...run.samples.filter((s) => s.at >= from && s.at < from + 15_000).map((s) => s.ms));
    row.rebalancePauseMs = {
      leave: Math.max(0, Math.round(worstAfter(changes.leave) - steady.p50)),
      join: Math.max(0, Math.round(worstAfter(changes.join) - steady.p50)),
    };
    row.sendErrorsDuringRebalance = run.errors;
    row.refusalsDuringRebalance = run.refusals;
  }
  results[`${replicas} replica${replicas > 1 ? 's' : ''}`] = row;
  stack.client.close();
  await stack.services.stop();
  current = null;
}
console.table(results);
process.stdout.write(`${JSON.stringify(results)}\n`);
await infra.stop();
process.exit(0);
