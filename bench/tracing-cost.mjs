// node bench/tracing-cost.mjs — what tracing (ADR 0032) or metrics (ADR 0028) cost the send path.
// Two stacks on the same Kafka, FerretDB and Redis, identical but for the instrument measured:
// - BENCH_INSTRUMENT=tracing (default): one stack without tracing (no OTLP endpoint: no SDK loaded),
//   one exporting every request's trace (OTEL_TRACES_SAMPLER=always_on, the worst case) over
//   OTLP/HTTP JSON to a receiver this process runs; BENCH_SAMPLER and BENCH_SAMPLER_ARG set the traced
//   stack's OTEL_TRACES_SAMPLER(_ARG), e.g. parentbased_traceidratio and 0.1 for a sampled deployment;
// - BENCH_INSTRUMENT=metrics: one stack as deployed (request histograms, process collectors, every
//   process scraped by this one every BENCH_SCRAPE_S seconds, default 15 as a Prometheus job often is),
//   one with METRICS=off in every process.
// Closed-loop sends (20 clients, each its own sender→receiver pair) alternate between the two, round
// after round (which goes first alternates too), so both see the same machine; each round waits until
// that stack's conversations show every last message, so each starts from an idle system. Both stacks'
// projections read the shared topics, so both do the same background work in every round. Prints every
// round and the ratios on/off. BENCH_DURATION (s per round and stack, default 10), BENCH_ROUNDS (default 4).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServices } from '@chat/devstack';
import { createGatewayClient } from './httpClient.mjs';
import { startOtlpCollector } from './otlpCollector.mjs';
import { percentile, startBenchStack } from './stack.mjs';

const CLIENTS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SAMPLER = process.env.BENCH_SAMPLER ?? 'always_on';
const SAMPLER_ARG = process.env.BENCH_SAMPLER_ARG;
const INSTRUMENT = process.env.BENCH_INSTRUMENT ?? 'tracing';
if (INSTRUMENT !== 'tracing' && INSTRUMENT !== 'metrics') throw new Error(`BENCH_INSTRUMENT is tracing or metrics, not ${INSTRUMENT}`);

// The collector stand-in counts the spans exported.
let exportedSpans = 0;
const collector = await startOtlpCollector(() => {
  exportedSpans += 1;
});
const endpoint = collector.endpoint;

// The bench's own stack runs as deployed by default (metrics on, tracing off); the second one differs
// only in the instrument measured.
const plain = await startBenchStack({ name: INSTRUMENT === 'tracing' ? 'bench untraced' : 'bench with metrics' });
plain.onStop(() => collector.close());
const otherServices = await startServices({
  ...plain.infra,
  ports: 'ephemeral',
  databaseSuffix: `benchtr${randomBytes(3).toString('hex')}`,
  extraEnv:
    INSTRUMENT === 'tracing'
      ? {
          LOG_LEVEL: 'warn',
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_TRACES_SAMPLER: SAMPLER,
          ...(SAMPLER_ARG === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: SAMPLER_ARG }),
        }
      : { LOG_LEVEL: 'warn', METRICS: 'off' },
});
plain.onStop(() => otherServices.stop());

// With metrics on, a scrape of every process of the metered stack, as Prometheus would.
const SCRAPE_S = Number(process.env.BENCH_SCRAPE_S ?? 15);
let scrapes = 0;
if (INSTRUMENT === 'metrics') {
  const targets = [plain.services.gatewayUrl, ...Object.values(plain.services.serviceUrls)];
  const scraper = setInterval(() => {
    for (const url of targets) {
      fetch(`${url}/metrics`)
        .then((r) => r.text())
        .then(() => scrapes++, () => undefined);
    }
  }, SCRAPE_S * 1_000);
  plain.onStop(() => clearInterval(scraper));
}

/** One stack as the rounds use it: its client, an app with 20 ready pairs, and its figures. */
async function prepare(label, gatewayUrl, managementKey, managementSecret) {
  const client = createGatewayClient(gatewayUrl);
  plain.onStop(() => client.close());
  const created = await client.request('POST', '/apps', { key: managementKey, secret: managementSecret }, { name: `bench ${label}`, region: 'us' });
  if (created.status !== 200) throw new Error(`${label}: creating the app failed: ${created.status} ${JSON.stringify(created.body)}`);
  const chat = { appid: created.body.data.id, apikey: Object.values(created.body.data.apiKeys).find((k) => k.scope === 'fullAccess').apiKey };
  const pairs = Array.from({ length: CLIENTS }, (_, i) => ({ sender: `s${i}`, receiver: `r${i}` }));
  for (const { sender, receiver } of pairs) {
    for (const uid of [sender, receiver]) await client.request('POST', '/v3/users', chat, { uid, name: uid });
  }
  const send = (pair, text) =>
    client.request('POST', '/v3/messages', { ...chat, onbehalfof: pair.sender }, { receiver: pair.receiver, receiverType: 'user', type: 'text', data: { text } });
  // The messages service learns users from events: wait until every sender can send.
  for (const pair of pairs) while ((await send(pair, 'warm-up')).status !== 200) await sleep(50);
  /** Resolves once the receiver's conversation shows this message (or a later one) as its last. */
  const visible = async (pair, id) => {
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline) {
      const r = await client.request('GET', `/v3/users/${pair.sender}/conversation`, { ...chat, onbehalfof: pair.receiver });
      const last = r.status === 200 ? r.body.data.lastMessage : undefined;
      if (last && BigInt(last.id) >= BigInt(id)) return;
      await sleep(10);
    }
  };
  return { label, pairs, send, visible, sent: 0, seconds: 0, latencies: [] };
}

/** One closed-loop round on one stack; then waits for its read model to catch up. */
async function round(stack) {
  const latencies = [];
  /** Failed sends by what came back: an HTTP status, or why no answer came. */
  const failed = new Map();
  const lastIds = new Map();
  const started = performance.now();
  const end = started + DURATION_S * 1000;
  await Promise.all(
    stack.pairs.map(async (pair, client) => {
      for (let i = 0; performance.now() < end; i++) {
        const sentAt = performance.now();
        const r = await stack.send(pair, `${stack.label}-${client}-${i}`);
        if (r.status === 200) {
          latencies.push(performance.now() - sentAt);
          lastIds.set(pair, r.body.data.id);
        } else {
          const why = r.status === 0 ? r.error : `${r.status} ${r.body?.error?.code ?? ''}`.trim();
          failed.set(why, (failed.get(why) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const [pair, id] of lastIds) await stack.visible(pair, id);
  stack.sent += latencies.length;
  stack.seconds += seconds;
  stack.latencies.push(...latencies);
  latencies.sort((a, b) => a - b);
  const failures = [...failed.values()].reduce((sum, n) => sum + n, 0);
  const reasons = [...failed].map(([why, n]) => `${why} ×${n}`).join(', ');
  return { rate: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed: failures ? `${failures} (${reasons})` : '0' };
}

const [plainLabel, otherLabel] = INSTRUMENT === 'tracing' ? ['untraced', 'traced'] : ['metrics', 'nometrics'];
const first = await prepare(plainLabel, plain.services.gatewayUrl, plain.services.managementKey, plain.services.managementSecret);
const second = await prepare(otherLabel, otherServices.gatewayUrl, otherServices.managementKey, otherServices.managementSecret);
const [off, on] = INSTRUMENT === 'tracing' ? [first, second] : [second, first];

const fmt = (v) => v.toFixed(1).padStart(7);
if (INSTRUMENT === 'tracing') console.log(`traced stack: OTEL_TRACES_SAMPLER=${SAMPLER}${SAMPLER_ARG === undefined ? '' : ` (${SAMPLER_ARG})`}`);
else console.log(`metered stack: metrics on in every process, scraped every ${SCRAPE_S} s; the other: METRICS=off`);
console.log(`send path, ${CLIENTS} concurrent clients, ${ROUNDS} rounds of ${DURATION_S} s per stack, alternating (machine shared: compare the ratios, not the absolutes)`);
console.log('  round  stack       msg/s   p50 ms   p99 ms  failed');
for (let r = 1; r <= ROUNDS; r++) {
  for (const stack of r % 2 === 1 ? [off, on] : [on, off]) {
    const figures = await round(stack);
    console.log(`  ${String(r).padStart(5)}  ${stack.label.padEnd(9)} ${fmt(figures.rate)}  ${fmt(figures.p50)}  ${fmt(figures.p99)}  ${figures.failed.padStart(6)}`);
  }
}
// Let the last batches reach the collector before counting.
await sleep(6_000);

const totals = (stack) => {
  stack.latencies.sort((a, b) => a - b);
  return { rate: stack.sent / stack.seconds, p50: percentile(stack.latencies, 50), p99: percentile(stack.latencies, 99) };
};
const [a, b] = [totals(off), totals(on)];
console.log(`  all    ${off.label.padEnd(9)} ${fmt(a.rate)}  ${fmt(a.p50)}  ${fmt(a.p99)}`);
console.log(`  all    ${on.label.padEnd(9)} ${fmt(b.rate)}  ${fmt(b.p50)}  ${fmt(b.p99)}`);
const detail =
  INSTRUMENT === 'tracing'
    ? `${exportedSpans} spans exported, ${(exportedSpans / Math.max(1, on.sent)).toFixed(1)} per traced send incl. reads and warm-up`
    : `${scrapes} scrapes answered`;
console.log(
  `${INSTRUMENT} on/off: throughput ${(b.rate / a.rate).toFixed(3)}, p50 ${(b.p50 / a.p50).toFixed(3)}, p99 ${(b.p99 / a.p99).toFixed(3)} (${detail})`,
);

await plain.stop();
process.exit(0);
