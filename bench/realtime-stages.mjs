// node bench/realtime-stages.mjs — where a `message` frame's time goes after a send (issue 24 goal 2).
// Each sampled send is timed at every point this process can see, on one clock (epoch ms, fractional):
//   scheduled start → answer (the send path) ; → the record's producer timestamp (the messages
//   service's produce call) → a bare kafkajs consumer in this process got the record (the broker's
//   produce → fetch visibility, with realtime's fetch settings) → the frame on a socket straight to the
//   realtime replica (its consumer, fan-out and write) → the frame on a socket of the same user through
//   the gateway (the splice).
// The receiver of every pair holds both sockets; BENCH_STAGES_IDLE more sockets (users with no traffic)
// are held straight to realtime, as bench/realtime.mjs's thousands are. Open loop at BENCH_STAGES_RATES
// (msg/s, comma-separated; default 100) for BENCH_STAGES_SECONDS each. Realtime's event-loop delay and
// GC over each run come from its /metrics (prom-client's default metrics; a scrape restarts the delay's
// histogram, so each figure covers the time since the scrape before it).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { eventHeaderNames, internalHeaders, topics } from '../packages/contracts/dist/index.js';
import { createKafka, loadKafkaSecurity } from '../packages/kafka/dist/index.js';
import { createGatewayClient } from './httpClient.mjs';
import { processCpuMs } from './processCpu.mjs';
import { percentile, runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic, inParallel, ok } from './traffic.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  pairs: knob('BENCH_STAGES_PAIRS', 50),
  idle: knob('BENCH_STAGES_IDLE', 2_000),
  idleSeconds: knob('BENCH_STAGES_IDLE_SECONDS', 12),
  seconds: knob('BENCH_STAGES_SECONDS', 20),
  rates: (process.env.BENCH_STAGES_RATES ?? '100').split(',').map(Number),
  localAddresses: 8,
};
const now = () => performance.timeOrigin + performance.now();
const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits }) : String(n));
const quantiles = (values) => {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  return `p50 ${fmt(percentile(s, 50), 1)} p90 ${fmt(percentile(s, 90), 1)} p99 ${fmt(percentile(s, 99), 1)} max ${fmt(s.at(-1), 1)}`;
};

const stack = await startBenchStack({ name: 'realtime stages' });
await runBenchOn(stack, run);

/** A socket that notes when each `message` frame's id arrived. */
async function openSocket(url, headers, localAddress, arrivals) {
  const socket = new WebSocket(url, { headers, localAddress, perMessageDeflate: false });
  socket.on('message', (data) => {
    const at = now();
    if (!arrivals) return;
    const frame = JSON.parse(data.toString('utf8'));
    if (frame.type === 'message' && !arrivals.has(String(frame.data.id))) arrivals.set(String(frame.data.id), at);
  });
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
  stack.onStop(() => socket.terminate());
  return socket;
}

/** Realtime's event-loop delay since the last scrape (prom-client's) and GC seconds so far. */
async function realtimeMetrics(url) {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  const value = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
  const gc = [...text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm)].reduce((m, [, what, kind, v]) => m.set(`${kind} ${what}`, Number(v)), new Map());
  return { lagP99: value('nodejs_eventloop_lag_p99_seconds'), lagMax: value('nodejs_eventloop_lag_max_seconds'), gc };
}

async function run() {
  const { appId, chat } = stack.app;
  const realtime = stack.services.instances.find((i) => i.service === 'realtime');
  const client = createGatewayClient(stack.services.gatewayUrl, { timeoutMs: 30_000 });
  stack.onStop(() => client.close());
  const traffic = createTraffic({ client, chat, setupTimeoutS: 600, setupConcurrency: 16 });

  // The bare consumer: realtime's fetch settings, in a process that does little else.
  const consumed = new Map();
  const produced = new Map();
  const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
  const kafka = createKafka('bench-stages', stack.infra.kafkaBrokers.split(','), quiet, loadKafkaSecurity(process.env));
  const consumer = kafka.consumer({ groupId: `bench-stages-${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 1_000, sessionTimeout: 30_000, heartbeatInterval: 1_000 });
  stack.onStop(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.messages], fromBeginning: false });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 8,
    eachBatch: async ({ batch }) => {
      const at = now();
      for (const message of batch.messages) {
        if (message.headers?.[eventHeaderNames.type]?.toString() !== 'MessageSent') continue;
        const event = JSON.parse(message.value.toString('utf8'));
        if (event.type !== 'MessageSent') continue;
        const id = String(event.data.id);
        consumed.set(id, at);
        produced.set(id, Number(message.timestamp));
      }
    },
  });

  const uids = Array.from({ length: CONFIG.pairs * 2 }, (_, i) => `st${String(i).padStart(4, '0')}`);
  const tokens = new Map();
  await inParallel(uids, 16, async (uid) => tokens.set(uid, (await traffic.must('POST', '/v3/users', chat, { uid, name: uid, withAuthToken: true })).data.authToken));
  const wsGateway = stack.services.gatewayUrl.replace(/^http/, 'ws');
  const wsRealtime = realtime.url.replace(/^http/, 'ws');
  const direct = new Map(uids.map((uid) => [uid, new Map()]));
  const spliced = new Map(uids.map((uid) => [uid, new Map()]));
  const identity = (uid) => ({ [internalHeaders.appId]: appId, [internalHeaders.onBehalfOf]: uid, [internalHeaders.authTokenId]: `stages-${uid}` });
  await inParallel(uids, 20, async (uid) => {
    const i = uids.indexOf(uid);
    await openSocket(`${wsGateway}/v3/realtime?appId=${appId}&authToken=${tokens.get(uid)}`, {}, `127.0.0.${2 + (i % CONFIG.localAddresses)}`, spliced.get(uid));
    await openSocket(`${wsRealtime}/v3/realtime`, identity(uid), `127.0.0.${2 + (i % CONFIG.localAddresses)}`, direct.get(uid));
  });
  const idleUids = Array.from({ length: CONFIG.idle }, (_, i) => `idle${i}`);
  let opened = 0;
  await inParallel(idleUids, 100, (uid) => openSocket(`${wsRealtime}/v3/realtime`, identity(uid), `127.0.0.${2 + (opened++ % CONFIG.localAddresses)}`, null));
  console.log(`realtime stages: ${CONFIG.pairs} pairs (receiver sockets through the gateway and straight to realtime), ${fmt(CONFIG.idle)} idle sockets straight to realtime; realtime pid ${realtime.pid()}`);

  const pairs = Array.from({ length: CONFIG.pairs }, (_, i) => ({ kind: 'user', a: uids[2 * i], b: uids[2 * i + 1] }));
  for (const pair of pairs) await traffic.must('POST', '/v3/messages', { ...chat, onbehalfof: pair.a }, { receiver: pair.b, receiverType: 'user', type: 'text', data: { text: 'warm-up' } });
  await sleep(3_000);

  // Idle: what realtime spends holding the sockets (presence heartbeats, timers), and its loop's stalls.
  await realtimeMetrics(realtime.url);
  const cpuBefore = processCpuMs(realtime.pid());
  const idleStarted = performance.now();
  await sleep(CONFIG.idleSeconds * 1000);
  const idleCpuPct = ((processCpuMs(realtime.pid()) - cpuBefore) / (performance.now() - idleStarted)) * 100;
  const idle = await realtimeMetrics(realtime.url);
  console.log(`idle ${CONFIG.idleSeconds} s: realtime CPU ${fmt(idleCpuPct, 2)} %, event-loop delay p99 ${fmt(idle.lagP99 * 1000, 1)} ms, max ${fmt(idle.lagMax * 1000, 1)} ms`);

  for (const rate of CONFIG.rates) {
    const before = await realtimeMetrics(realtime.url);
    const sent = [];
    const inFlight = [];
    const started = now();
    const total = Math.round(rate * CONFIG.seconds);
    for (let i = 0; i < total; i++) {
      const scheduledAt = started + (i * 1000) / rate;
      const wait = scheduledAt - now();
      if (wait > 1) await sleep(wait);
      const pair = pairs[i % pairs.length];
      const [sender, receiver] = Math.floor(i / pairs.length) % 2 === 0 ? [pair.a, pair.b] : [pair.b, pair.a];
      inFlight.push(
        traffic.send(pair, sender, `stages ${rate} ${i}`).then((answer) => {
          if (ok(answer)) sent.push({ id: String(answer.body.data.id), receiver, scheduledAt, answeredAt: now() });
        }),
      );
    }
    await Promise.all(inFlight);
    await sleep(3_000);
    const after = await realtimeMetrics(realtime.url);
    const rows = sent.map((s) => ({
      answer: s.answeredAt - s.scheduledAt,
      produced: produced.get(s.id) - s.scheduledAt,
      fetched: consumed.get(s.id) - produced.get(s.id),
      direct: direct.get(s.receiver).get(s.id) - produced.get(s.id),
      directVsBare: direct.get(s.receiver).get(s.id) - consumed.get(s.id),
      splice: spliced.get(s.receiver).get(s.id) - direct.get(s.receiver).get(s.id),
      frameDirect: direct.get(s.receiver).get(s.id) - s.scheduledAt,
      frame: spliced.get(s.receiver).get(s.id) - s.scheduledAt,
    }));
    const missing = rows.filter((r) => !Number.isFinite(r.frame) || !Number.isFinite(r.frameDirect)).length;
    console.log(`\nat ${rate} msg/s for ${CONFIG.seconds} s: ${sent.length} sends answered, ${missing} frames missing`);
    for (const [key, label] of [
      ['answer', 'send → answer (baseline)'],
      ['produced', 'send → record produced (producer timestamp)'],
      ['fetched', 'produced → bare consumer has it'],
      ['direct', 'produced → frame, socket straight to realtime'],
      ['directVsBare', 'bare consumer → frame straight (realtime\'s extra)'],
      ['splice', 'frame straight → frame through the gateway'],
      ['frameDirect', 'send → frame straight to realtime'],
      ['frame', 'send → frame through the gateway (the goal)'],
    ]) console.log(`  ${label.padEnd(52)} ${quantiles(rows.map((r) => r[key]))}`);
    const gc = [...after.gc].filter(([k]) => k.endsWith('sum')).map(([k, v]) => `${k.split(' ')[0]} ${fmt((v - (before.gc.get(k) ?? 0)) * 1000)} ms/${fmt(after.gc.get(k.replace('sum', 'count')) - (before.gc.get(k.replace('sum', 'count')) ?? 0))}`);
    console.log(`  realtime: event-loop delay p99 ${fmt(after.lagP99 * 1000, 1)} ms, max ${fmt(after.lagMax * 1000, 1)} ms over the run; GC over the run: ${gc.join(', ')}`);
  }
}
