// node bench/notifications.mjs — notification figures (issue 11), beside the store's raw insert rate:
//   1. decisions/s: GROUP_MESSAGES messages to a group of GROUP_SIZE members, half of whom muted it,
//      so the decisions (notify through the custom push provider, or skip with MUTE_PREFERENCE) come
//      faster than the API takes messages: what is measured is the notifications service, not the
//      send path. Counted from the notification log (one entry per skip, one per first provider
//      call); the rate is entries ÷ (last entry − first entry).
//   2. event → provider call latency (p50/p99) at RATE msg/s (open loop, over 50 conversations):
//      from the moment POST /messages answered (the message event is stored then) to the custom
//      push provider's request. Goal: p99 ≤ 200 ms.
//   Knobs: RATE (default 200), BENCH_SECONDS (10), GROUP_SIZE (200), GROUP_MESSAGES (10), DECISION_WAIT_S (240), STORE_RAW_DURATION_MS (3000).
import os from 'node:os';
import { startPushProvider } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { percentile, startBenchStack } from './stack.mjs';
import { formatStoreRaw, measureStoreRaw } from './store-raw.mjs';

const RATE = Number(process.env.RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const GROUP_SIZE = Number(process.env.GROUP_SIZE ?? 200);
const GROUP_MESSAGES = Number(process.env.GROUP_MESSAGES ?? 10);
const RECIPIENTS = 50;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
const { infra, services, createApp, onStop, stop } = stack;
const gateway = createGatewayClient(services.gatewayUrl);

/** A gateway call that must succeed, retried while the stack is still busy with an earlier phase. */
async function must(method, path, headers, body) {
  for (let attempt = 1; ; attempt++) {
    const answer = await gateway.request(method, path, headers, body);
    if (answer.status === 200) return answer.body;
    if (attempt === 20) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body ?? answer.error)}`);
    await pause(500);
  }
}

/** An app whose custom push provider is `endpoint`, with a sender and `count` users the service knows. */
async function notifyingApp(label, endpoint, count) {
  const app = await createApp(label);
  await must('POST', '/v3/notifications/push/v1/providers/custom', app.chat, { isEnabled: true, webhookURL: endpoint.url, useBasicAuth: false });
  const uids = ['sender', ...Array.from({ length: count }, (_, i) => `r${i}`)];
  for (const uid of uids) await must('POST', '/v3/users', app.chat, { uid, name: uid });
  // The notifications service learns users from the users service's events.
  for (const uid of uids) await must('GET', `/v3/notifications/v1/preferences?uid=${uid}`, app.chat);
  return { app, recipients: uids.slice(1) };
}

/** One message from the sender; its id and when the API answered, or null when refused. */
async function message(app, to, receiverType = 'user') {
  const answer = await gateway.request('POST', '/v3/messages', { ...app.chat, onbehalfof: 'sender' }, { receiver: to, receiverType, type: 'text', data: { text: 'ping' } });
  return answer.status === 200 ? { id: String(answer.body.data.id), answeredAt: performance.now() } : null;
}

/** Every log entry of an app, newest first, page by page. */
async function allLogEntries(app) {
  const entries = [];
  let cursor = '';
  for (;;) {
    const page = await must('GET', `/v3/notifications/v1/logs?limit=1000${cursor}`, app.chat);
    entries.push(...page.data);
    if (!page.meta.next) return entries;
    cursor = `&affix=append&logId=${encodeURIComponent(page.meta.next.logId)}`;
  }
}

try {
  const raw = await measureStoreRaw({ mongoUrl: infra.mongoUrl, sizes: [], durationMs: Number(process.env.STORE_RAW_DURATION_MS ?? 3_000) });
  console.log(formatStoreRaw(raw));
  console.log(`machine load (1 min) at start: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);

  // 1. Decisions per second, half of them skips, from group messages (one message, GROUP_SIZE decisions).
  const burstEndpoint = await startPushProvider();
  onStop(burstEndpoint.close);
  const burst = await notifyingApp('notification decisions', burstEndpoint, GROUP_SIZE);
  await must('POST', '/v3/groups', burst.app.chat, { guid: 'crowd', name: 'crowd', type: 'public', owner: 'sender' });
  for (let i = 0; i < burst.recipients.length; i += 100) {
    await must('POST', '/v3/groups/crowd/members', burst.app.chat, { participants: burst.recipients.slice(i, i + 100) });
  }
  const muting = burst.recipients.filter((_, i) => i % 2 === 1);
  for (const uid of muting) await must('PUT', `/v3/notifications/v1/preferences/mute?uid=${uid}`, burst.app.chat, { conversations: [{ id: 'crowd', type: 'group' }] });
  // A first message shows when the service knows every member (it learns them from events).
  const probe = await message(burst.app, 'crowd', 'group');
  for (let i = 0; i < 600; i++) {
    const page = await must('GET', `/v3/notifications/v1/logs?messageId=${probe.id}&limit=100`, burst.app.chat);
    if (page.data.length === 100) break;
    await pause(500);
  }
  await pause(3_000);
  const started = performance.now();
  const burstIds = [];
  for (let i = 0; i < GROUP_MESSAGES; i++) {
    const sent = await message(burst.app, 'crowd', 'group');
    if (sent) burstIds.push(sent.id);
  }
  const sendSeconds = (performance.now() - started) / 1000;
  const expected = burstIds.length * GROUP_SIZE;
  const ids = new Set(burstIds);
  // The notified half is seen arriving at the provider; the log is read once they all have (and again
  // until the skips are all there too: the log is a read model, written a moment later).
  const notified = burstIds.length * (GROUP_SIZE - muting.length);
  const before = burstEndpoint.requests();
  const waitUntil = Date.now() + Number(process.env.DECISION_WAIT_S ?? 240) * 1000;
  while (Date.now() < waitUntil && burstEndpoint.requests() - before < notified) await pause(200);
  // Read at least once, even when the wait ran out: the rate is then over the decisions made so far.
  const deadline = Math.max(waitUntil, Date.now() + 30_000);
  let entries = [];
  while (Date.now() < deadline) {
    entries = (await allLogEntries(burst.app)).filter((e) => ids.has(e.messageId) && (!e.notificationTriggered || e.attempt === 1));
    if (entries.length >= expected) break;
    await pause(2_000);
  }
  const times = entries.map((e) => e.processingStartedAtMS).sort((a, b) => a - b);
  const skipped = entries.filter((e) => !e.notificationTriggered).length;
  if (entries.length < expected) console.log(`decisions: only ${entries.length} of ${expected} were logged in time (${burstEndpoint.requests() - before} provider calls)`);
  const decisionRate = entries.length / ((times.at(-1) - times[0]) / 1000);
  console.log(
    `decisions: ${burstIds.length} messages to a group of ${GROUP_SIZE + 1} sent in ${sendSeconds.toFixed(1)} s; ` +
      `${entries.length}/${expected} decisions logged (${entries.length - skipped} notified, ${skipped} muted), ${decisionRate.toFixed(0)} decisions/s (first to last log entry); ` +
      `÷ raw insertOne: ${(decisionRate / raw.insertOne.perSecond).toFixed(2)}, ÷ raw insertMany docs: ${(decisionRate / raw.insertMany.perSecond).toFixed(3)}`,
  );
  await burstEndpoint.close();

  // 2. Latency at RATE msg/s, open loop: sends start on schedule whether or not earlier ones finished.
  const endpoint = await startPushProvider();
  onStop(endpoint.close);
  const paced = await notifyingApp('notification latency', endpoint, RECIPIENTS);
  const total = Math.round(RATE * SECONDS);
  const sent = [];
  const inFlight = [];
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / RATE - performance.now();
    if (wait > 1) await pause(wait);
    inFlight.push(message(paced.app, paced.recipients[i % RECIPIENTS]).then((s) => s && sent.push(s)));
  }
  await Promise.all(inFlight);
  const until = Date.now() + 60_000;
  while (Date.now() < until && !sent.every((s) => endpoint.arrivals.has(s.id))) await pause(20);
  const latencies = sent.map((s) => endpoint.arrivals.get(s.id) - s.answeredAt).filter(Number.isFinite).sort((a, b) => a - b);
  console.log(
    `latency at ${RATE} msg/s, message event → provider call (API answer → custom push request): ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms ` +
      `(${latencies.length}/${sent.length} notified; ${total - sent.length} sends not accepted; goal p99 ≤ 200 ms)`,
  );
} finally {
  await stop();
}
