// node bench/messages-send.mjs — sending messages through the gateway:
//  1. propagation: at fixed rates (open loop, no coordinated omission), how long until a message is the
//     `lastMessage` of the receiver's conversation (GET /v3/users/{sender}/conversation on behalf of the
//     receiver). One message at a time is watched (polled every 10 ms), so watching adds little load;
//  2. throughput: 20 concurrent clients (each its own sender→receiver pair) send as fast as answers come.
// Prints figures; asserts nothing. BENCH_DURATION (s per step), BENCH_RATES (e.g. "50,100,200,500").
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, startBenchStack } from './stack.mjs';

const CLIENTS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const RATES = (process.env.BENCH_RATES ?? '5,10,20,40,80,160,320,500').split(',').map(Number);
const POLL_MS = 10;
const GOAL_MS = 100;

const { services, api, app, onStop, stop } = await startBenchStack({ name: 'bench' });
const { chat } = app;

const gateway = new URL(services.gatewayUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
onStop(() => agent.destroy());

/** One request on the keep-alive agent; resolves with status and parsed body. */
function request(method, path, headers, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: gateway.hostname,
        port: gateway.port,
        path,
        method,
        agent,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const pairs = Array.from({ length: CLIENTS }, (_, i) => ({ sender: `s${i}`, receiver: `r${i}` }));
for (const { sender, receiver } of pairs) {
  for (const uid of [sender, receiver]) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });
}
// The messages service learns users from events: wait until every sender can send.
for (const { sender, receiver } of pairs) {
  for (;;) {
    const r = await request('POST', '/v3/messages', { ...chat, onbehalfof: sender }, { receiver, receiverType: 'user', data: { text: 'warm-up' } });
    if (r.status === 200) break;
    await sleep(50);
  }
}

function send(pair, text) {
  return request('POST', '/v3/messages', { ...chat, onbehalfof: pair.sender }, { receiver: pair.receiver, receiverType: 'user', type: 'text', data: { text } });
}

/** Resolves when the receiver's conversation shows this message (or a later one) as its last. */
async function visibleAt(pair, id, deadline) {
  while (performance.now() < deadline) {
    const r = await request('GET', `/v3/users/${pair.sender}/conversation`, { ...chat, onbehalfof: pair.receiver });
    const last = r.status === 200 ? r.body.data.lastMessage : undefined;
    if (last && BigInt(last.id) >= BigInt(id)) return performance.now();
    await sleep(POLL_MS);
  }
  return null;
}

const fmt = (v) => (Number.isNaN(v) ? '   n/a' : v.toFixed(1).padStart(6));

// 0. One client, one message at a time: the unloaded round trip.
{
  const latencies = [];
  let lastId = null;
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const r = await send(pairs[0], `seq${i}`);
    if (r.status === 200) {
      latencies.push(performance.now() - started);
      lastId = r.body.data.id;
    }
  }
  if (lastId) await visibleAt(pairs[0], lastId, performance.now() + 60_000);
  latencies.sort((a, b) => a - b);
  console.log(`one client, sequential sends: p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms`);
}

// 1. Propagation at fixed rates, on a system that is idle when it starts.
console.log(`propagation to the receiver's conversation (one message at a time watched, polled every ${POLL_MS} ms; times from the scheduled send):`);
console.log('   rate   sent/s   send p50   send p99   visible p50   visible p99   after-answer p99   failed');
let held = null;
for (const rate of RATES) {
  const total = Math.round(rate * DURATION_S);
  const sendLatencies = [];
  const visible = [];
  const afterAnswer = [];
  let failures = 0;
  let lost = 0;
  const started = performance.now();
  const inFlight = [];
  let watching = false;
  for (let i = 0; i < total; i++) {
    const scheduledAt = started + (i * 1000) / rate;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await sleep(wait);
    const pair = pairs[i % CLIENTS];
    inFlight.push(
      (async () => {
        const r = await send(pair, `p${rate}-${i}`).catch(() => ({ status: 0 }));
        const answeredAt = performance.now();
        if (r.status !== 200) {
          failures += 1;
          return;
        }
        sendLatencies.push(answeredAt - scheduledAt);
        if (watching) return;
        watching = true;
        const seenAt = await visibleAt(pair, r.body.data.id, answeredAt + 10_000);
        watching = false;
        if (seenAt === null) lost += 1;
        else {
          visible.push(seenAt - scheduledAt);
          afterAnswer.push(seenAt - answeredAt);
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  for (const list of [sendLatencies, visible, afterAnswer]) list.sort((a, b) => a - b);
  const achieved = sendLatencies.length / elapsed;
  const p99 = percentile(visible, 99);
  console.log(
    `  ${String(rate).padStart(5)}   ${achieved.toFixed(0).padStart(6)}   ${fmt(percentile(sendLatencies, 50))}     ${fmt(percentile(sendLatencies, 99))}     ` +
      `${fmt(percentile(visible, 50))}        ${fmt(p99)}        ${fmt(percentile(afterAnswer, 99))}          ${failures}${lost ? ` (+${lost} never visible)` : ''}`,
  );
  const keptUp = failures === 0 && lost === 0 && achieved >= rate * 0.95;
  if (keptUp && p99 <= GOAL_MS) held = rate;
  // Far past saturation every further step only queues: stop there.
  if (!keptUp || p99 > 20 * GOAL_MS) break;
}
console.log(
  held === null
    ? `\nno tested rate kept the visible p99 within ${GOAL_MS} ms`
    : `\nhighest tested rate held with visible p99 ≤ ${GOAL_MS} ms: ${held} msg/s`,
);
console.log('');

// 2. Closed-loop throughput with 20 clients (last: it leaves the read models a backlog).
{
  const latencies = [];
  let failures = 0;
  const lastIds = new Map();
  const end = performance.now() + DURATION_S * 1000;
  await Promise.all(
    pairs.map(async (pair, client) => {
      for (let i = 0; performance.now() < end; i++) {
        const started = performance.now();
        const r = await send(pair, `t${client}-${i}`);
        if (r.status === 200) {
          latencies.push(performance.now() - started);
          lastIds.set(pair, r.body.data.id);
        } else failures += 1;
      }
    }),
  );
  // Let the read model catch up before the next phase: each step starts from an idle system.
  const drainStarted = performance.now();
  for (const [pair, id] of lastIds) await visibleAt(pair, id, performance.now() + 60_000);
  const drainMs = performance.now() - drainStarted;
  latencies.sort((a, b) => a - b);
  console.log(`send throughput, ${CLIENTS} concurrent clients, ${DURATION_S} s: ${(latencies.length / DURATION_S).toFixed(0)} msg/s` +
    `  (send p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms, ${failures} failed;` +
    ` conversations caught up ${(drainMs / 1000).toFixed(1)} s after the last send)`);
}

await stop();
process.exit(0);
