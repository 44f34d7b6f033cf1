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
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { alternatingOrder, buildRootsFromArgs, startBuildRound, startSharedInfrastructure, storeSettingsFromEnv, useStoreSettings } from './buildRounds.mjs';
import { sentMessageKey } from './kafkaProbe.mjs';
import { percentile } from './percentile.mjs';
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
};
const roots = buildRootsFromArgs('send-latency-ab.mjs');
process.env.FERRETDB_STATS_INTERVAL ??= '1s';

const storeEnv = storeSettingsFromEnv();
const shared = await startSharedInfrastructure();
const { infra, probe } = shared;
const storeLog = storeLogOf(infra.mongoUrl);
const currentApps = new Set();
/** The sends' arrivals on the topic. */
let events;

/** One build's round: per rate the sorted send, Kafka and visible times and the write-lock tally. */
async function runRound(root, which) {
  await useStoreSettings(infra, storeEnv, which);
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
    beforeWarmUp: async ({ appId }) => {
      // Watched from the first round on (the services create the topic), for this round's app.
      events ??= await probe.watchArrivals('chat.messages.events', sentMessageKey, () => currentApps);
      currentApps.clear();
      currentApps.add(appId);
    },
  });
  const { suffix, appId, traffic, targets, ours } = round;
  try {
    const byRate = [];
    for (const rate of CONFIG.rates) {
      const answered = [];
      const logFrom = fileSize(storeLog);
      const loop = await traffic.openLoop(targets, rate, { seconds: CONFIG.seconds, visibleSamplesPerSecond: 20, pollBudgetPerSecond: 200, visibleTimeoutS: 10, onAnswered: (a) => answered.push(a) });
      await probe.waitForQuiet(ours, CONFIG.idleTimeoutS * 1000);
      await sleep(1_500); // the runner's last report of the phase
      const tally = readTally(storeLog, logFrom, fileSize(storeLog), suffix);
      const sendTimes = answered.map((a) => a.answeredAt - a.scheduledAt).sort((a, b) => a - b);
      const onKafka = answered
        .map((a) => events.arrivals.get(`${appId}/${a.id}`) - a.scheduledAt)
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      byRate.push({ rate, sent: answered.length, errors: String(loop.errors), sendTimes, onKafka, visible: loop.visibleTimes, notVisible: loop.notVisible, tally });
    }
    return byRate;
  } finally {
    await shared.stopRound();
  }
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

const order = alternatingOrder(CONFIG.rounds);
const pooled = roots.map(() => new Map(CONFIG.rates.map((rate) => [rate, { send: [], kafka: [], visible: [], p99s: { send: [], kafka: [], visible: [] }, lockMs: 0, sent: 0 }])));
console.log(`send latency A/B: A ${roots[0]}${storeEnv ? ` ${JSON.stringify(storeEnv[0])}` : ''}, B ${roots[1]}${storeEnv ? ` ${JSON.stringify(storeEnv[1])}` : ''}; ${CONFIG.rounds} rounds (${order.map((i) => 'AB'[i]).join(' ')}), rates ${CONFIG.rates.join(', ')} msg/s for ${CONFIG.seconds} s each`);
try {
  for (const [round, which] of order.entries()) {
    const started = new Date().toISOString().slice(11, 19);
    const results = await runRound(roots[which], which);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`round ${round + 1} ${'AB'[which]} (${started}, load ${load})`);
    for (const r of results) {
      const lock = r.tally ? r.tally.writeBusyMs / r.sent : NaN;
      console.log(`  ${r.rate} msg/s: ${r.sent} answered, ${r.errors}; p50/p99 send ${times(r.sendTimes)}, on Kafka ${times(r.onKafka)}, visible ${times(r.visible)} ms [${r.visible.length}, ${r.notVisible} not visible]; over 250 ms: send ${over250(r.sendTimes)}, Kafka ${over250(r.onKafka)}, visible ${over250(r.visible)}; write lock ${lock.toFixed(3)} ms/msg`);
      if (r.tally) console.log(`    longest mean write commands: ${longestCommands(r.tally)}`);
      const total = pooled[which].get(r.rate);
      total.send.push(...r.sendTimes);
      total.kafka.push(...r.onKafka);
      total.visible.push(...r.visible);
      total.p99s.send.push(percentile(r.sendTimes, 99));
      total.p99s.kafka.push(percentile(r.onKafka, 99));
      total.p99s.visible.push(percentile(r.visible, 99));
      total.lockMs += r.tally?.writeBusyMs ?? 0;
      total.sent += r.sent;
    }
  }
  const median = (values) => percentile([...values].sort((a, b) => a - b), 50);
  console.log('\nall rounds: A | B | B ÷ A — p99 pooled over the rounds (median of the rounds\' p99s in brackets)');
  for (const rate of CONFIG.rates) {
    const [a, b] = pooled.map((p) => p.get(rate));
    for (const what of ['send', 'kafka', 'visible']) {
      const [pa, pb] = [a, b].map((t) => percentile([...t[what]].sort((x, y) => x - y), 99));
      const [ma, mb] = [a, b].map((t) => median(t.p99s[what]));
      console.log(`  ${rate} msg/s ${what.padEnd(8)} p99 ${fmt(pa)} | ${fmt(pb)} | ${(pb / pa).toFixed(2)}   (${fmt(ma)} | ${fmt(mb)} | ${(mb / ma).toFixed(2)});  p50 ${fmt(percentile([...a[what]].sort((x, y) => x - y), 50))} | ${fmt(percentile([...b[what]].sort((x, y) => x - y), 50))};  over 250 ms ${over250(a[what])} of ${a[what].length} | ${over250(b[what])} of ${b[what].length}`);
    }
    const [la, lb] = [a, b].map((t) => t.lockMs / t.sent);
    console.log(`  ${rate} msg/s write lock ms/msg ${la.toFixed(3)} | ${lb.toFixed(3)} | ${(lb / la).toFixed(2)}`);
  }
} finally {
  await events?.close();
  await shared.stop();
}
process.exit(0);
