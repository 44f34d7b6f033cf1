// node bench/webhooks.mjs — webhook delivery figures (issue 9), beside the store's raw insert rate:
//   1. deliveries/s to local receivers that answer at once: messages sent as fast as the stack takes
//      them, each delivered to WEBHOOK_FANOUT webhooks (so the delivery process, not the send path,
//      is what is measured), from the first delivery to the last;
//   2. event → delivered latency (p50/p99) at RATE msg/s (open loop, over 50 conversations): from the
//      moment POST /messages answered (the event is stored then) to the receiver's request;
//   3. isolation: the same latency for a fast endpoint while a second webhook of the app is fast,
//      then while it answers after SLOW_MS (5 s); the ratio of the two p99s (goal ≤ 1.10).
//   Goals: ≥ 1,000 deliveries/s, p99 ≤ 200 ms. After the throughput run it prints what the
//   configuration fence cost there (ADR 0035): watermark reads per message, and rounds that gave up.
//   Knobs: RATE (default 200), BENCH_SECONDS (10), WEBHOOK_FANOUT (10), BURST_MESSAGES (300),
//   SLOW_MS (5000), STORE_RAW_DURATION_MS (3000).
import { addMessageSentWebhook, startWebhookReceiver as startReceiver } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { percentile, startBenchStack } from './stack.mjs';
import { formatStoreRaw, measureStoreRaw } from './store-raw.mjs';

const RATE = Number(process.env.RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FANOUT = Number(process.env.WEBHOOK_FANOUT ?? 10);
const BURST = Number(process.env.BURST_MESSAGES ?? 300);
const SLOW_MS = Number(process.env.SLOW_MS ?? 5_000);
const CONVERSATIONS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
const { infra, services, createApp, onStop, stop } = stack;
const client = createGatewayClient(services.gatewayUrl);

/** Creates users, retrying a refused or timed-out call (a stack still busy with the previous phase). */
async function usersFor(app, count) {
  const uids = Array.from({ length: count }, (_, i) => `u${i}`);
  for (const uid of uids) {
    for (let attempt = 1; ; attempt++) {
      const answer = await client.request('POST', '/v3/users', app.chat, { uid, name: uid });
      if (answer.status === 200 || answer.body?.error?.code === 'ERR_UID_ALREADY_EXISTS') break;
      if (attempt === 10) throw new Error(`create user ${uid}: ${answer.status} ${JSON.stringify(answer.body ?? answer.error)}`);
      await sleep(1_000);
    }
  }
  return uids;
}

/** Sends one text message; resolves with its id and when the API answered (performance.now()). */
async function send(app, from, to) {
  const answer = await client.request('POST', '/v3/messages', { ...app.chat, onbehalfof: from }, { receiver: to, receiverType: 'user', type: 'text', data: { text: 'hook' } });
  if (answer.status !== 200) return null;
  return { id: String(answer.body.data.id), answeredAt: performance.now() };
}

/** Open-loop sends at `rate`/s for `seconds`, round robin over the conversations. */
async function sendAtRate(app, pairs, rate, seconds) {
  const sent = [];
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const pending = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const [from, to] = pairs[i % pairs.length];
    pending.push(send(app, from, to).then((s) => s && sent.push(s)));
  }
  await Promise.all(pending);
  return sent;
}

async function waitFor(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await sleep(20);
  return check();
}

function latencies(sent, receiver) {
  return sent.map((s) => receiver.arrivals.get(s.id) - s.answeredAt).filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;

/** A metric summed over every webhooks replica (`/metrics`, Prometheus text). */
async function webhooksMetric(name) {
  let sum = 0;
  for (const instance of services.instances.filter((i) => i.service === 'webhooks')) {
    const text = await (await fetch(`${instance.url}/metrics`)).text();
    for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

try {
  const raw = await measureStoreRaw({ mongoUrl: infra.mongoUrl, sizes: [], durationMs: Number(process.env.STORE_RAW_DURATION_MS ?? 3_000) });
  console.log(formatStoreRaw(raw));
  const load = (await import('node:os')).loadavg()[0];
  console.log(`machine load (1 min) at start: ${load.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);

  // 1. Throughput with a fan-out of webhooks that all answer at once.
  const burstApp = await createApp('webhook burst');
  const burstUsers = await usersFor(burstApp, 20);
  const burstPairs = burstUsers.map((u, i) => [u, burstUsers[(i + 1) % burstUsers.length]]);
  const burstReceivers = [];
  for (let i = 0; i < FANOUT; i++) {
    const receiver = await startReceiver();
    onStop(receiver.close);
    burstReceivers.push(receiver);
    await addMessageSentWebhook(stack, burstApp, `burst-${i}`, receiver.url);
  }
  const roundsBefore = await webhooksMetric('configuration_fence_rounds');
  const burstStarted = performance.now();
  const sentBurst = [];
  await Promise.all(
    burstPairs.map(async ([from, to], lane) => {
      for (let i = lane; i < BURST; i += burstPairs.length) {
        const s = await send(burstApp, from, to);
        if (s) sentBurst.push(s);
      }
    }),
  );
  const sendSeconds = (performance.now() - burstStarted) / 1000;
  const expected = sentBurst.length * FANOUT;
  const delivered = () => burstReceivers.reduce((n, r) => n + r.arrivals.size, 0);
  await waitFor(() => delivered() >= expected, 300_000);
  const firstArrival = Math.min(...burstReceivers.flatMap((r) => [...r.arrivals.values()]));
  const lastArrival = Math.max(...burstReceivers.flatMap((r) => [...r.arrivals.values()]));
  const deliveryRate = delivered() / ((lastArrival - firstArrival) / 1000);
  console.log(
    `throughput: ${sentBurst.length} messages sent in ${sendSeconds.toFixed(1)} s (${(sentBurst.length / sendSeconds).toFixed(0)} msg/s), ` +
      `× ${FANOUT} webhooks = ${delivered()}/${expected} deliveries, ${deliveryRate.toFixed(0)} deliveries/s (first to last arrival; goal ≥ 1,000); ` +
      `÷ raw insertOne: ${(deliveryRate / raw.insertOne.perSecond).toFixed(2)}, ÷ raw insertMany docs: ${(deliveryRate / raw.insertMany.perSecond).toFixed(3)}`,
  );
  const rounds = (await webhooksMetric('configuration_fence_rounds')) - roundsBefore;
  console.log(
    `configuration fence: ${rounds} watermark reads for ${sentBurst.length} messages (${(rounds / Math.max(1, sentBurst.length)).toFixed(2)} per message), ` +
      `${await webhooksMetric('configuration_fence_timeouts')} rounds gave up, ${await webhooksMetric('configuration_load_timeouts')} loads gave up`,
  );
  await Promise.all(burstReceivers.map((r) => r.close()));

  // 2 and 3. Latency at RATE msg/s for a fast endpoint, beside a fast and then a slow one.
  const measure = async (label, secondDelayMs) => {
    const app = await createApp(`webhook latency ${label}`);
    const uids = await usersFor(app, CONVERSATIONS + 1);
    const pairs = Array.from({ length: CONVERSATIONS }, (_, i) => [uids[0], uids[i + 1]]);
    const fast = await startReceiver();
    const second = await startReceiver(secondDelayMs);
    onStop(fast.close);
    onStop(second.close);
    await addMessageSentWebhook(stack, app, 'fast', fast.url);
    await addMessageSentWebhook(stack, app, 'second', second.url);
    const sent = await sendAtRate(app, pairs, RATE, SECONDS);
    await waitFor(() => sent.every((s) => fast.arrivals.has(s.id)), 60_000);
    const values = latencies(sent, fast);
    const result = {
      p50: percentile(values, 50),
      p99: percentile(values, 99),
      delivered: values.length,
      sent: sent.length,
      refused: Math.round(RATE * SECONDS) - sent.length,
      secondRequests: second.requests(),
    };
    await fast.close();
    await second.close();
    return result;
  };
  const beside = await measure('beside fast', 0);
  console.log(
    `latency at ${RATE} msg/s, event → delivered (API answer → receiver): p50 ${fmt(beside.p50)}, p99 ${fmt(beside.p99)} ` +
      `(${beside.delivered}/${beside.sent} delivered; ${beside.refused} sends not accepted by the stack; goal p99 ≤ 200 ms)`,
  );
  const besideSlow = await measure('beside slow', SLOW_MS);
  console.log(
    `isolation: the fast endpoint's p99 beside a fast one ${fmt(beside.p99)}, beside one answering after ${SLOW_MS / 1000} s ${fmt(besideSlow.p99)} ` +
      `(p50 ${fmt(besideSlow.p50)}; ${besideSlow.delivered}/${besideSlow.sent} delivered, ${besideSlow.refused} sends not accepted; ` +
      `the slow one got ${besideSlow.secondRequests} requests meanwhile); ratio ${(besideSlow.p99 / beside.p99).toFixed(2)} (goal ≤ 1.10)`,
  );
} finally {
  await stop();
}
