// node bench/send-stages.mjs — where a send's time goes, stage by stage (issue 23: "find what waits").
// One stack as bench/cost.mjs starts it, with every process exporting its traces (ADR 0032) over
// OTLP/HTTP JSON to a receiver in this process; 50 one-on-one pairs and 2 groups of 20, an open loop at
// BENCH_RATE sends/s (default 100) for BENCH_SECONDS (default 10), the receivers' conversations
// watched as bench/cost.mjs does, and a fresh consumer on chat.messages.events. From each send's spans
// (gateway edge → messages request → command → grouped append → Kafka produce) it prints p50/p99 of:
//   proxy        gateway edge start → the messages service's request span start
//   before turn  request start → command start (muid look-up, facts, moderation, dry run)
//   to append    command start → its grouped append starts (id allocation, lane, decide, group queue)
//   append       the grouped append (journal insert + commits insertMany)
//   apply        append end → command end (read-your-writes: the messages read model)
//   answer       command end → request end, and request end → gateway edge end
//   to produce   append end → its Kafka produce starts (the outbox's queue)
//   produce      the produce request (until the broker's acks)
//   fetched      produce end → a fresh consumer has the record
// and the totals: send (edge), event produced and fetched (from the edge's start); then the conversations
// service's side: produce end → its projection run starts (fetch wait, the run before it), the run, and
// projected (from the edge's start), beside the watched visibility. Tracing costs
// some CPU itself (ADR 0032's figures), so the totals run a little above an untraced run's.
// Last, the watched sends one by one (ADR 0129): each matched to its trace by its gateway edge span
// (started within 2.5 ms of its scheduled time), its visible time split into answered, produced (from the
// scheduled send), produce end → conversations run start (fetch wait and the runs before it), the run,
// and run end → visible (the receiver's next poll and its read); the slowest BENCH_SLOWEST % (default 2)
// printed, with each part's mean over them and over all.
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { watchAppSends } from './kafkaProbe.mjs';
import { startOtlpCollector } from './otlpCollector.mjs';
import { percentile, startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** Every span exported, by span id: { traceId, parent, links, name, kind, service, start, end } (ms since the epoch). */
const spans = new Map();
const collector = await startOtlpCollector((span, service) => {
  spans.set(span.spanId, {
    traceId: span.traceId,
    parent: span.parentSpanId || undefined,
    links: (span.links ?? []).map((l) => l.spanId),
    name: span.name,
    kind: span.kind,
    service,
    start: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
    end: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
  });
});
const endpoint = collector.endpoint;

const stack = await startBenchStack({
  name: 'send stages',
  extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on', OTEL_BSP_SCHEDULE_DELAY: '500' },
});
stack.onStop(() => collector.close());
const { client, events } = await watchAppSends(stack, createGatewayClient);
const app = stack.app;

const traffic = createTraffic({ client, chat: app.chat, setupTimeoutS: 300 });
const targets = await traffic.createTargets({ prefix: 'st', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
await sleep(2_000);
const answered = [];
/** The watched sends once visible: `{ id, scheduledAt, answeredAt, seenAt }` (performance.now()). */
const seen = [];
const loop = await traffic.openLoop(targets, RATE, {
  seconds: SECONDS,
  visibleSamplesPerSecond: 20,
  pollBudgetPerSecond: 200,
  visibleTimeoutS: 5,
  onAnswered: (a) => answered.push(a),
  onVisible: (v) => seen.push(v),
});
// The batch span processors export every 0.5 s; a little longer for the last ones.
await sleep(3_000);

const edgeOf = new Map();
/** Each command span's grouped append: its parent, or one of its links. */
const appendOf = new Map();
/** Each command span's first produce span. */
const produceOf = new Map();
for (const span of spans.values()) {
  if (span.name === 'append') for (const owner of [span.parent, ...span.links]) if (owner) appendOf.set(owner, span);
  if (span.name.startsWith('send ') && span.parent && !produceOf.has(span.parent)) produceOf.set(span.parent, span);
}
for (const [id, span] of spans) if (span.service === 'gateway' && !span.parent && span.name.startsWith('POST')) edgeOf.set(span.traceId, { id, ...span });
/** The conversations service's projection of each produce span's events (a child of the produce span). */
const projectedOf = new Map();
for (const span of spans.values()) {
  if (span.service === 'conversations' && span.name === 'process chat.messages.events' && span.parent) projectedOf.set(span.parent, span);
}
const produceIds = new Map([...spans].map(([id, span]) => [span, id]));

const stages = new Map();
const add = (name, value) => {
  if (Number.isFinite(value)) stages.set(name, [...(stages.get(name) ?? []), value]);
};
let traced = 0;
const commandIds = new Map();
for (const [id, span] of spans) if (span.name === 'command') commandIds.set(span.traceId, id);
for (const edge of edgeOf.values()) {
  const request = [...spans.values()].find((s) => s.traceId === edge.traceId && s.service === 'messages' && s.kind === 2);
  const commandId = commandIds.get(edge.traceId);
  const command = commandId ? spans.get(commandId) : undefined;
  if (!request || !command) continue;
  traced += 1;
  const append = appendOf.get(commandId);
  const produce = produceOf.get(commandId);
  add('proxy (edge → messages request)', request.start - edge.start);
  add('before turn (facts, moderation, dry run)', command.start - request.start);
  if (append) {
    add('to append (ids, lane, decide, group queue)', append.start - command.start);
    add('append (journal + commits insert)', append.end - append.start);
    add('apply (read-your-writes)', command.end - append.end);
    if (produce) add('to produce (outbox queue)', produce.start - append.end);
  }
  add('answer (command end → request end)', request.end - command.end);
  add('back (request end → edge end)', edge.end - request.end);
  add('send total (edge)', edge.end - edge.start);
  if (produce) {
    add('produce (until acks)', produce.end - produce.start);
    add('event produced (from edge start)', produce.end - edge.start);
    const projected = projectedOf.get(produceIds.get(produce));
    if (projected) {
      add('to conversations (produce end → projection start)', projected.start - produce.end);
      add('conversations projection (its run)', projected.end - projected.start);
      add('projected (from edge start)', projected.end - edge.start);
    }
  }
}
for (const a of answered) {
  const arrived = events.arrivals.get(`${app.appId}/${a.id}`);
  if (arrived !== undefined) add('event fetched (from scheduled send)', arrived - a.scheduledAt);
}

console.log(`\nopen loop ${RATE} sends/s for ${SECONDS} s: ${answered.length} answered, ${loop.errors}, ${loop.late} late; send p50 ${loop.sendP50?.toFixed(1)} p99 ${loop.sendP99?.toFixed(1)} ms, visible p99 ${loop.visibleP99?.toFixed(1)} ms; ${traced} traced sends`);
console.log(`${'stage'.padEnd(46)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'mean'.padStart(8)}  n`);
for (const [name, values] of stages) {
  values.sort((a, b) => a - b);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  console.log(`${name.padEnd(46)} ${percentile(values, 50).toFixed(1).padStart(8)} ${percentile(values, 99).toFixed(1).padStart(8)} ${mean.toFixed(1).padStart(8)}  ${values.length}`);
}
// The watched sends, each matched to its trace by the gateway edge span that started when it was
// scheduled (epoch = timeOrigin + scheduledAt; a send starts on schedule unless late), split into
// where its visible time went; the slowest BENCH_SLOWEST (default 2 %) are printed one by one, and
// every part's mean over them beside its mean over all, so a tail's cause shows as the part that grows.
const edgesByStart = [...edgeOf.values()].sort((a, b) => a.start - b.start);
const projectionOf = (edge) => {
  const commandId = commandIds.get(edge.traceId);
  const produce = commandId ? produceOf.get(commandId) : undefined;
  return produce ? { produce, projected: projectedOf.get(produceIds.get(produce)) } : {};
};
const nearestEdge = (epoch) => {
  let lo = 0;
  let hi = edgesByStart.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edgesByStart[mid].start < epoch) lo = mid + 1;
    else hi = mid;
  }
  const near = [edgesByStart[lo - 1], edgesByStart[lo]].filter(Boolean).sort((a, b) => Math.abs(a.start - epoch) - Math.abs(b.start - epoch))[0];
  return near && Math.abs(near.start - epoch) < 2.5 ? near : undefined;
};
const parts = ['answered', 'produced', 'fetch+queue', 'run', 'read'];
const rows = [];
for (const v of seen) {
  const scheduled = performance.timeOrigin + v.scheduledAt;
  const edge = nearestEdge(scheduled);
  if (!edge) continue;
  const { produce, projected } = projectionOf(edge);
  if (!produce || !projected) continue;
  const seenAt = performance.timeOrigin + v.seenAt;
  rows.push({
    id: v.id,
    visible: seenAt - scheduled,
    answered: performance.timeOrigin + v.answeredAt - scheduled,
    produced: produce.end - scheduled,
    'fetch+queue': projected.start - produce.end,
    run: projected.end - projected.start,
    read: seenAt - projected.end,
  });
}
rows.sort((a, b) => b.visible - a.visible);
const slowest = rows.slice(0, Math.max(1, Math.ceil((rows.length * Number(process.env.BENCH_SLOWEST ?? 2)) / 100)));
const meanOf = (list, key) => list.reduce((s, r) => s + r[key], 0) / Math.max(1, list.length);
console.log(`\nwatched sends matched to their traces: ${rows.length} of ${seen.length}; ms from the scheduled send (answered, produced) and per part after it`);
console.log(`${''.padEnd(14)} ${'visible'.padStart(8)} ${parts.map((p) => p.padStart(12)).join('')}`);
for (const r of slowest) console.log(`${r.id.padEnd(14)} ${r.visible.toFixed(1).padStart(8)} ${parts.map((p) => r[p].toFixed(1).padStart(12)).join('')}`);
for (const [label, list] of [['mean, slowest', slowest], ['mean, all', rows]]) {
  console.log(`${label.padEnd(14)} ${meanOf(list, 'visible').toFixed(1).padStart(8)} ${parts.map((p) => meanOf(list, p).toFixed(1).padStart(12)).join('')}`);
}
await stack.stop();
process.exit(0);
