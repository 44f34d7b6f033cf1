// node bench/send-latency-ab.mjs <build root A> <build root B> — the latency of a send below capacity
// (issue 23: send p99, event on Kafka p99, visible p99 at 100 and 200 msg/s), two builds alternated on one
// Kafka, FerretDB and Redis as bench/send-path-cpu.mjs alternates them for CPU (ADR 0094). Each round starts
// one build's services and gateway (its own compiled `dist`, its own databases), sets up the cost bench's
// traffic (BENCH_PAIRS one-on-one pairs, BENCH_GROUPS groups of BENCH_GROUP_SIZE), warms up, waits until
// every consumer group is idle, then runs an open loop at each of BENCH_RATES for BENCH_SECONDS, and stops
// the build. Rounds go A B B A A B …, so a drift in the machine's other load falls on both builds alike.
// Per round and rate: send, event on Kafka (a fresh consumer) and visible p50/p99 from the scheduled send,
// and the store's write lock per message with the longest mean command (the runner's tally,
// FERRETDB_STATS_INTERVAL, 1 s here unless given). At the end, per build and rate: the p99s pooled over its
// rounds, the median of its rounds' p99s, and the ratio B ÷ A. Nothing sheds (as send-path-cpu.mjs).
// Knobs: BENCH_ROUNDS (6), BENCH_RATES (100,200), BENCH_SECONDS (15), BENCH_PAIRS (50), BENCH_GROUPS (2),
// BENCH_GROUP_SIZE (20), BENCH_IDLE_TIMEOUT (60). BENCH_STORE_ENV="<A's>|<B's>" compares two settings of the
// store instead of (or beside) two builds (buildRounds.mjs): the shared FerretDB restarts with each round's. Beside the p99s: how many sends
// took over 250 ms (issue 23's visible goal at 200 msg/s), per round and pooled.
// BENCH_AGED=1 (ADR 0161; buildRounds.mjs): B's rounds all run on one set of databases aged once before the
// first round — a round of B's traffic (not counted), then its app copied until the databases hold
// BENCH_AGED_BYTES (1 GiB; bench/agedHistory.mjs) — each round on a new app, while A's rounds run on new
// databases as always. With the same root twice, B ÷ A is issue 23's aged ÷ fresh in alternated windows on one
// store; beside it what the runner wrote a message. BENCH_AGED=both (ADR 0164): A's rounds on the aged databases
// too (two store settings, BENCH_STORE_ENV, on aged data). The aged databases are dropped at the end.
// BENCH_FEATURES=on (roundFeatures.mjs): every round's app gets what a large tenant turns on — a webhook on
// `message_sent`, a custom push provider with a token for each user, a 200-word moderation rule — and each rate
// also prints webhook event → delivered and push → provider call (issue 23: p99 ≤ 500 ms at 100 msg/s), from the
// event's arrival on Kafka as bench/cost.mjs measures them; a delivery or call not there BENCH_ARRIVAL_TIMEOUT
// (10) s after the loop counts as missing.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ageDatabases, agedLabel, agedSideFromEnv, agedSuffixOf, alternatingOrder, buildRootsFromArgs, dropAgedDatabases, startBuildRound, startSharedInfrastructure, storeSettingsFromEnv, useStoreSettings } from './buildRounds.mjs';
import { sentMessageKey } from './kafkaProbe.mjs';
import { percentile } from './percentile.mjs';
import { addRoundFeatures, FEATURES_ENV, startFeatureReceivers } from './roundFeatures.mjs';
import { fileSize, readTally, storeLogOf } from './storeTally.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  rounds: knob('BENCH_ROUNDS', 6),
  rates: (process.env.BENCH_RATES ?? '100,200').split(',').map(Number),
  seconds: knob('BENCH_SECONDS', 15),
  pairs: knob('BENCH_PAIRS', 50),
  groups: knob('BENCH_GROUPS', 2),
  groupSize: knob('BENCH_GROUP_SIZE', 20),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 60),
  features: process.env.BENCH_FEATURES === 'on',
  arrivalTimeoutS: knob('BENCH_ARRIVAL_TIMEOUT', 10),
};
/** The latencies printed per rate: the send path's, and with the features the webhook's and the push's. */
const MEASURES = ['send', 'kafka', 'visible', ...(CONFIG.features ? ['webhook', 'push'] : [])];
const aged = agedSideFromEnv('sla');
const roots = buildRootsFromArgs('send-latency-ab.mjs');
process.env.FERRETDB_STATS_INTERVAL ??= '1s';

const storeEnv = storeSettingsFromEnv();
const shared = await startSharedInfrastructure();
const { infra, probe } = shared;
const receivers = CONFIG.features ? await startFeatureReceivers() : null;
const storeLog = storeLogOf(infra.mongoUrl);
const currentApps = new Set();
/** The sends' arrivals on the topic. */
let events;

/**
 * What the runner has written (`wchar`: bytes handed to write calls — the WAL's frames and the checkpoints'
 * copies into the databases; `syscw`: those calls), from /proc; zeros without its pid.
 */
function storeIo(pid) {
  if (pid === undefined) return { wchar: 0, syscw: 0 };
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
  return { wchar: field('wchar'), syscw: field('syscw') };
}

/** One build's round: per rate the sorted send, Kafka and visible times and the write-lock tally. */
async function runRound(root, which) {
  await useStoreSettings(infra, storeEnv, which, aged);
  const round = await startBuildRound({
    infra,
    probe,
    root,
    name: 'send latency ab',
    suffixPrefix: 'sla',
    targetPrefix: 'sl',
    pairs: CONFIG.pairs,
    groups: CONFIG.groups,
    groupSize: CONFIG.groupSize,
    warmUpRate: CONFIG.rates[0],
    idleTimeoutS: CONFIG.idleTimeoutS,
    registerStop: shared.registerStop,
    databaseSuffix: agedSuffixOf(aged, which),
    extraEnv: CONFIG.features ? FEATURES_ENV : {},
    beforeWarmUp: async (started) => {
      // Watched from the first round on (the services create the topic), for this round's app.
      events ??= await probe.watchArrivals('chat.messages.events', sentMessageKey, () => currentApps);
      currentApps.clear();
      currentApps.add(started.appId);
      if (receivers) await addRoundFeatures(started, receivers, 'sla');
    },
  });
  const { suffix, appId, traffic, targets, ours, storePid } = round;
  try {
    const byRate = [];
    for (const rate of CONFIG.rates) {
      const answered = [];
      // A message's id is unique in its app only: the receivers' arrivals start empty for each window.
      receivers?.hooks.arrivals.clear();
      receivers?.push.arrivals.clear();
      const logFrom = fileSize(storeLog);
      const ioFrom = storeIo(storePid);
      const loop = await traffic.openLoop(targets, rate, { seconds: CONFIG.seconds, visibleSamplesPerSecond: 20, pollBudgetPerSecond: 200, visibleTimeoutS: 10, onAnswered: (a) => answered.push(a) });
      await probe.waitForQuiet(ours, CONFIG.idleTimeoutS * 1000);
      if (receivers) await waitForCalls(answered);
      await sleep(1_500); // the runner's last report of the phase
      const tally = readTally(storeLog, logFrom, fileSize(storeLog), suffix);
      const io = storeIo(storePid);
      const written = { bytes: io.wchar - ioFrom.wchar, calls: io.syscw - ioFrom.syscw };
      const sendTimes = answered.map((a) => a.answeredAt - a.scheduledAt).sort((a, b) => a - b);
      const onKafkaAt = (a) => events.arrivals.get(`${appId}/${a.id}`);
      const onKafka = delays(answered, onKafkaAt, (a) => a.scheduledAt);
      // From the event's arrival on Kafka, not the send's answer (as bench/cost.mjs): under load the answer can
      // reach the client after the delivery does.
      const webhook = receivers ? delays(answered, (a) => receivers.hooks.arrivals.get(a.id), onKafkaAt) : [];
      const push = receivers ? delays(answered, (a) => receivers.push.arrivals.get(a.id), onKafkaAt) : [];
      byRate.push({ rate, sent: answered.length, errors: String(loop.errors), send: sendTimes, kafka: onKafka, visible: loop.visibleTimes, webhook, push, notVisible: loop.notVisible, tally, written });
    }
    return { byRate, appId, storePid };
  } finally {
    await shared.stopRound();
  }
}

/** Sorted `at(send) − from(send)` over the answered sends whose both times came. */
function delays(answered, at, from) {
  return answered
    .map((a) => at(a) - from(a))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
}

/** Until every answered send's webhook delivery and push call arrived, or BENCH_ARRIVAL_TIMEOUT. */
async function waitForCalls(answered) {
  const deadline = performance.now() + CONFIG.arrivalTimeoutS * 1000;
  const arrived = () => answered.every((a) => receivers.hooks.arrivals.has(a.id) && receivers.push.arrivals.has(a.id));
  while (performance.now() < deadline && !arrived()) await sleep(50);
}

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const times = (sorted) => `${fmt(percentile(sorted, 50))}/${fmt(percentile(sorted, 99))}`;
const over250 = (values) => values.filter((v) => v > 250).length;
/** The write rows of a tally with the longest mean command (ms a command), the likeliest to hold a send. */
function longestCommands(tally, count = 3) {
  return tally.rows
    .filter((r) => r.kind === 'write' && r.commands > 0)
    .map((r) => ({ what: `${r.command} ${r.collection}`, mean: r.busyMs / r.commands, perCommand: r.statements / r.commands }))
    .sort((a, b) => b.mean - a.mean)
    .slice(0, count)
    .map((r) => `${r.what} ${r.mean.toFixed(2)} ms (${r.perCommand.toFixed(1)} stmts)`)
    .join(', ');
}

/** Per side, the runner's tally of write commands pooled over its rounds and rates: `<command> <collection>` → totals. */
const commandTotals = roots.map(() => new Map());
function addCommands(totals, tally) {
  for (const r of tally?.rows ?? []) {
    if (r.kind !== 'write' || r.commands === 0) continue;
    const key = `${r.command} ${r.collection}`;
    const t = totals.get(key) ?? { commands: 0, busyMs: 0 };
    totals.set(key, { commands: t.commands + r.commands, busyMs: t.busyMs + r.busyMs });
  }
}

/** The write commands that held the lock longest over A's and B's rounds: ms a command A | B | B ÷ A. */
function printCommandGrowth(count = 12) {
  const [a, b] = commandTotals;
  const keys = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.has(k) && b.has(k));
  keys.sort((x, y) => b.get(y).busyMs + a.get(y).busyMs - (b.get(x).busyMs + a.get(x).busyMs));
  console.log(`\nthe store's write commands, ms a command (the runner's tally, all rounds and rates): A | B | B ÷ A`);
  for (const key of keys.slice(0, count)) {
    const [ma, mb] = [a, b].map((t) => t.get(key).busyMs / t.get(key).commands);
    console.log(`  ${key.padEnd(58)} ${ma.toFixed(3)} | ${mb.toFixed(3)} | ${(mb / ma).toFixed(2)}   (${a.get(key).commands} | ${b.get(key).commands} cmds)`);
  }
}

const order = alternatingOrder(CONFIG.rounds);
const pooled = roots.map(() => new Map(CONFIG.rates.map((rate) => [rate, { ...Object.fromEntries(MEASURES.map((m) => [m, []])), p99s: Object.fromEntries(MEASURES.map((m) => [m, []])), lockMs: 0, sent: 0, writtenBytes: 0, writeCalls: 0 }])));
console.log(`send latency A/B${agedLabel(aged)}${receivers ? ', features on' : ''}: A ${roots[0]}${storeEnv ? ` ${JSON.stringify(storeEnv[0])}` : ''}, B ${roots[1]}${storeEnv ? ` ${JSON.stringify(storeEnv[1])}` : ''}; ${CONFIG.rounds} rounds (${order.map((i) => 'AB'[i]).join(' ')}), rates ${CONFIG.rates.join(', ')} msg/s for ${CONFIG.seconds} s each`);
/** BENCH_AGED=1: a round of B's traffic on B's databases (not counted), then its app copied into them. */
async function ageBsDatabases() {
  const { appId, storePid } = await runRound(roots[1], 1);
  await ageDatabases(infra, aged, appId, storePid);
}

try {
  if (aged) await ageBsDatabases();
  for (const [round, which] of order.entries()) {
    const started = new Date().toISOString().slice(11, 19);
    const { byRate: results } = await runRound(roots[which], which);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`round ${round + 1} ${'AB'[which]} (${started}, load ${load})`);
    for (const r of results) {
      const lock = r.tally ? r.tally.writeBusyMs / r.sent : NaN;
      const features = receivers ? `, webhook ${times(r.webhook)} [${r.sent - r.webhook.length} missing], push ${times(r.push)} [${r.sent - r.push.length} missing]` : '';
      console.log(`  ${r.rate} msg/s: ${r.sent} answered, ${r.errors}; p50/p99 send ${times(r.send)}, on Kafka ${times(r.kafka)}, visible ${times(r.visible)} ms [${r.visible.length}, ${r.notVisible} not visible]${features}; over 250 ms: send ${over250(r.send)}, Kafka ${over250(r.kafka)}, visible ${over250(r.visible)}; write lock ${lock.toFixed(3)} ms/msg; the store wrote ${(r.written.bytes / r.sent / 1024).toFixed(1)} KiB/msg in ${(r.written.calls / r.sent).toFixed(1)} calls`);
      if (r.tally) console.log(`    longest mean write commands: ${longestCommands(r.tally)}`);
      const total = pooled[which].get(r.rate);
      for (const what of MEASURES) {
        total[what].push(...r[what]);
        total.p99s[what].push(percentile(r[what], 99));
      }
      total.lockMs += r.tally?.writeBusyMs ?? 0;
      addCommands(commandTotals[which], r.tally);
      total.writtenBytes += r.written.bytes;
      total.writeCalls += r.written.calls;
      total.sent += r.sent;
    }
  }
  const median = (values) => percentile([...values].sort((a, b) => a - b), 50);
  console.log('\nall rounds: A | B | B ÷ A — p99 pooled over the rounds (median of the rounds\' p99s in brackets)');
  for (const rate of CONFIG.rates) {
    const [a, b] = pooled.map((p) => p.get(rate));
    for (const what of MEASURES) {
      const [pa, pb] = [a, b].map((t) => percentile([...t[what]].sort((x, y) => x - y), 99));
      const [ma, mb] = [a, b].map((t) => median(t.p99s[what]));
      console.log(`  ${rate} msg/s ${what.padEnd(8)} p99 ${fmt(pa)} | ${fmt(pb)} | ${(pb / pa).toFixed(2)}   (${fmt(ma)} | ${fmt(mb)} | ${(mb / ma).toFixed(2)});  p50 ${fmt(percentile([...a[what]].sort((x, y) => x - y), 50))} | ${fmt(percentile([...b[what]].sort((x, y) => x - y), 50))};  over 250 ms ${over250(a[what])} of ${a[what].length} | ${over250(b[what])} of ${b[what].length}`);
    }
    const [la, lb] = [a, b].map((t) => t.lockMs / t.sent);
    console.log(`  ${rate} msg/s write lock ms/msg ${la.toFixed(3)} | ${lb.toFixed(3)} | ${(lb / la).toFixed(2)}`);
    const [wa, wb] = [a, b].map((t) => t.writtenBytes / t.sent / 1024);
    const [ca, cb] = [a, b].map((t) => t.writeCalls / t.sent);
    console.log(`  ${rate} msg/s the store wrote KiB/msg ${wa.toFixed(1)} | ${wb.toFixed(1)} | ${(wb / wa).toFixed(2)}, write calls/msg ${ca.toFixed(1)} | ${cb.toFixed(1)} | ${(cb / ca).toFixed(2)}`);
  }
  printCommandGrowth();
} finally {
  await events?.close();
  await receivers?.close();
  if (aged) await dropAgedDatabases(infra, aged).catch((error) => console.error(`the aged databases not dropped: ${error.message}`));
  await shared.stop();
}
process.exit(0);
