// node bench/send-path-cpu.mjs <build root A> <build root B> — CPU ms per message of the send path's
// processes (gateway, messages, users; the rest printed too), two builds of the stack alternated on one
// Kafka, FerretDB and Redis (ADR 0071). Each round starts one build's services and gateway (its own
// compiled `dist`, its own databases), sends warm-up traffic, waits until every consumer group is idle,
// reads each process's CPU over BENCH_IDLE_SECONDS, then runs an open loop at BENCH_RATE msg/s for
// BENCH_SECONDS (a fixed rate: the same work for both builds) until the groups are idle again, and stops
// the build. Rounds go A B B A A B …, so a drift in the machine's other load falls on both builds alike.
// Printed per round and summed per build: CPU ms per accepted message, in all and net of the idle rate,
// and the ratio B ÷ A; and requests per message from the sockets' counters (socketRequests.mjs): the
// gateway's look-ups in the users service (they follow the traffic, not the machine's load) and each
// process's Kafka requests (their batching moves with the load). A build root is a checkout with `tsc -b` done (e.g. a copy of main's worktree).
// Nothing sheds (UNSHED in buildRounds.mjs). Knobs: BENCH_ROUNDS (4), BENCH_RATE (50), BENCH_SECONDS (20), BENCH_IDLE_SECONDS (3), BENCH_PAIRS (20),
// BENCH_GROUPS (1), BENCH_GROUP_SIZE (20), BENCH_IDLE_TIMEOUT (60), BENCH_FEATURES (off; `on`: each build's app
// gets process-cost.mjs's features — a webhook on `message_sent`, a custom push provider with an FCM token
// per user, a 200-word moderation rule — with the receivers on loopback, shared by both builds). With FERRETDB_STATS_INTERVAL (e.g. 1s) each round
// also prints the runner's write-lock ms per message by collection over its load (storeTally.mjs, ADR 0097).
// BENCH_STORE_ENV="<A's>|<B's>" compares two settings of the store (buildRounds.mjs; ADR 0155): the shared
// FerretDB restarts with each round's variables, so both roots may be the same. BENCH_AGED=1 (buildRounds.mjs,
// ADR 0161): B's rounds on one set of databases aged once before the first round, A's on new ones: with the same
// root twice, B ÷ A is the aged ÷ fresh CPU a message in alternated rounds. BENCH_AGED=both (ADR 0164): A's rounds on those
// aged databases too, to compare two settings of the store (BENCH_STORE_ENV) on aged data.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ageDatabases, agedLabel, agedSideFromEnv, agedSuffixOf, alternatingOrder, buildRootsFromArgs, dropAgedDatabases, startBuildRound, startSharedInfrastructure, storeSettingsFromEnv, useStoreSettings } from './buildRounds.mjs';
import { cpuSnapshot, stackProcesses } from './processCpu.mjs';
import { requestsBetween, requestsTo } from './socketRequests.mjs';
import { fileSize, parseDuration, readTally, storeLogOf } from './storeTally.mjs';
import { addRoundFeatures, FEATURES_ENV, startFeatureReceivers } from './roundFeatures.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  rounds: knob('BENCH_ROUNDS', 4),
  rate: knob('BENCH_RATE', 50),
  seconds: knob('BENCH_SECONDS', 20),
  idleSeconds: knob('BENCH_IDLE_SECONDS', 3),
  pairs: knob('BENCH_PAIRS', 20),
  groups: knob('BENCH_GROUPS', 1),
  groupSize: knob('BENCH_GROUP_SIZE', 20),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 60),
  features: process.env.BENCH_FEATURES === 'on',
};
const roots = buildRootsFromArgs('send-path-cpu.mjs');
const SERVICES = ['gateway', 'messages', 'users', 'conversations', 'calls', 'management', 'notifications', 'webhooks', 'realtime'];
/** The store and the broker are shared by both builds, but only one build runs in a round: their CPU in a round is that build's. */
const SHOWN = [...SERVICES, 'ferretdb', 'kafka'];

const shared = await startSharedInfrastructure();
const { infra, probe } = shared;
const tallyEveryMs = process.env.FERRETDB_STATS_INTERVAL ? parseDuration(process.env.FERRETDB_STATS_INTERVAL) : null;
const storeLog = storeLogOf(infra.mongoUrl);
const storeSettings = storeSettingsFromEnv();
const aged = agedSideFromEnv('spc');
const receivers = CONFIG.features ? await startFeatureReceivers() : null;

/** One build's stack: the services and the gateway of `root`, with databases of their own. */
async function runRound(root, which) {
  await useStoreSettings(infra, storeSettings, which, aged);
  const round = await startBuildRound({
    infra,
    probe,
    root,
    name: 'send path cpu',
    suffixPrefix: 'spc',
    targetPrefix: 'sp',
    pairs: CONFIG.pairs,
    groups: CONFIG.groups,
    groupSize: CONFIG.groupSize,
    warmUpRate: CONFIG.rate,
    idleTimeoutS: CONFIG.idleTimeoutS,
    extraEnv: CONFIG.features ? FEATURES_ENV : {},
    registerStop: shared.registerStop,
    databaseSuffix: agedSuffixOf(aged, which),
    beforeWarmUp: receivers ? (started) => addRoundFeatures(started, receivers, 'spc') : undefined,
  });
  const { suffix, services, traffic, targets, ours } = round;
  try {
    const gatewayPort = new URL(services.gatewayUrl).port;
    const gatewayPid = Number(readFileSync(join(root, '.infra', 'run', `gateway-${gatewayPort}.pid`), 'utf8'));
    const shared = stackProcesses({ infra, services }).processes.filter((p) => p.name === 'ferretdb' || p.name === 'kafka');
    const processes = [{ name: 'gateway', pid: gatewayPid }, ...services.instances.map((i) => ({ name: i.service, pid: i.pid() })), ...shared];
    const kafkaPort = new URL(`tcp://${infra.kafkaBrokers.split(',')[0]}`).port;
    const idleRequestsFrom = requestsTo(kafkaPort);
    const idleFrom = cpuSnapshot(processes);
    const idleStarted = performance.now();
    const idleAt = Date.now();
    await sleep(CONFIG.idleSeconds * 1000);
    const idleUntil = Date.now();
    const idle = cpuSnapshot(processes).since(idleFrom);
    const idleS = (performance.now() - idleStarted) / 1000;
    const idleToKafka = requestsBetween(idleRequestsFrom, requestsTo(kafkaPort));
    const idleRequests = processes.filter((p) => SERVICES.includes(p.name)).reduce((sum, p) => sum + (idleToKafka.get(p.pid) ?? 0), 0) / idleS;
    // Requests counted over the load's window: the gateway's look-ups (to the users service) and each
    // process's Kafka requests.
    const usersPort = new URL(services.instances.find((i) => i.service === 'users').url).port;
    const requestsFrom = { users: requestsTo(usersPort), kafka: requestsTo(kafkaPort) };
    const tallyFrom = fileSize(storeLog);
    const callsFrom = receivers ? receivers.hooks.requests() + receivers.push.requests() : 0;
    const loadFrom = cpuSnapshot(processes);
    const loadStarted = performance.now();
    const loadAt = Date.now();
    const r = await traffic.openLoop(targets, CONFIG.rate, { seconds: CONFIG.seconds, visibleSamplesPerSecond: 0, pollBudgetPerSecond: 1, visibleTimeoutS: 1 });
    const quiet = await probe.waitForQuiet(ours, CONFIG.idleTimeoutS * 1000);
    const load = cpuSnapshot(processes).since(loadFrom);
    const windows = { idle: [idleAt, idleUntil], load: [loadAt, Date.now()] };
    const toUsers = requestsBetween(requestsFrom.users, requestsTo(usersPort));
    const toKafka = requestsBetween(requestsFrom.kafka, requestsTo(kafkaPort));
    const requests = new Map([['gateway→users', toUsers.get(gatewayPid) ?? 0], ...processes.filter((p) => SERVICES.includes(p.name)).map((p) => [`${p.name}→kafka`, toKafka.get(p.pid) ?? 0])]);
    const loadS = (performance.now() - loadStarted) / 1000;
    const sent = Math.round(r.achieved * CONFIG.seconds);
    // After the CPU window: the runner prints a report once its interval ends.
    let locks = new Map();
    /** Write commands and statements by `<command> <collection>` (the runner's tally). */
    const commands = new Map();
    if (tallyEveryMs !== null) {
      await sleep(tallyEveryMs + 500);
      const tally = readTally(storeLog, tallyFrom, fileSize(storeLog), suffix);
      for (const row of tally?.rows ?? []) if (row.kind === 'write') locks.set(row.collection, (locks.get(row.collection) ?? 0) + row.busyMs);
      for (const row of tally?.rows ?? []) {
        if (row.kind !== 'write') continue;
        const key = `${row.command} ${row.collection}`;
        const [cmds, stmts] = commands.get(key) ?? [0, 0];
        commands.set(key, [cmds + row.commands, stmts + row.statements]);
      }
      locks = new Map([...locks].sort((a, b) => b[1] - a[1]));
    }
    const perMessage = new Map(SHOWN.map((name) => [name, load.get(name) / sent]));
    const net = new Map(SHOWN.map((name) => [name, (load.get(name) - (idle.get(name) / idleS) * loadS) / sent]));
    const calls = receivers ? receivers.hooks.requests() + receivers.push.requests() - callsFrom : 0;
    return { appId: round.appId, storePid: round.storePid, windows, sent, errors: String(r.errors), quiet: quiet.quiet, perMessage, net, cpu: load, idleRate: idle, idleS, idleRequests, loadS, requests, locks, commands, calls };
  } finally {
    await shared.stopRound();
  }
}

const totals = roots.map(() => ({ sent: 0, cpu: new Map(), idleCpu: new Map(), idleMs: new Map(), idleS: 0, idleRequests: 0, requests: new Map(), locks: new Map(), commands: new Map() }));
const order = alternatingOrder(CONFIG.rounds);
const fmt = (map) => SHOWN.map((name) => `${name} ${map.get(name).toFixed(3)}`).join(', ');
console.log(`send-path cpu${agedLabel(aged)}: A ${roots[0]}${storeSettings ? ` ${JSON.stringify(storeSettings[0])}` : ''}, B ${roots[1]}${storeSettings ? ` ${JSON.stringify(storeSettings[1])}` : ''}; ${CONFIG.rounds} rounds (${order.map((i) => 'AB'[i]).join(' ')}) of ${CONFIG.rate} msg/s for ${CONFIG.seconds} s`);
try {
  if (aged) {
    // A round of B's traffic on B's databases (not counted), then its app copied into them.
    const template = await runRound(roots[1], 1);
    await ageDatabases(infra, aged, template.appId, template.storePid);
  }
  for (const [round, which] of order.entries()) {
    const started = new Date().toISOString().slice(11, 19);
    const result = await runRound(roots[which], which);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(`round ${round + 1} ${'AB'[which]} (${started}, load ${load}): ${result.sent} accepted, ${result.errors}${result.quiet ? '' : ', NOT idle'}${receivers ? `, ${(result.calls / result.sent).toFixed(2)} webhook+push calls/msg` : ''}`);
    console.log(`  ms/msg ${fmt(result.perMessage)}`);
    console.log(`  net    ${fmt(result.net)}`);
    console.log(`  idle ms/s ${SHOWN.map((name) => `${name} ${(result.idleRate.get(name) / result.idleS).toFixed(2)}`).join(', ')}; services' Kafka requests/s ${result.idleRequests.toFixed(1)}`);
    console.log(`  requests/msg ${[...result.requests].map(([what, count]) => `${what} ${(count / result.sent).toFixed(3)}`).join(', ')}`);
    const iso = (ms) => new Date(ms).toISOString();
    // For bench/kafka-request-tally.mjs (KAFKA_REQUEST_LOG): the broker's requests in each window.
    console.log(`  windows idle ${result.windows.idle.map(iso).join('/')} load ${result.windows.load.map(iso).join('/')}`);
    if (tallyEveryMs !== null) console.log(`  write lock ms/msg ${[...result.locks].slice(0, 8).map(([what, ms]) => `${what} ${(ms / result.sent).toFixed(3)}`).join(', ')}`);
    const total = totals[which];
    for (const [what, ms] of result.locks) total.locks.set(what, (total.locks.get(what) ?? 0) + ms);
    for (const [what, [cmds, stmts]] of result.commands) {
      const [c, st] = total.commands.get(what) ?? [0, 0];
      total.commands.set(what, [c + cmds, st + stmts]);
    }
    total.sent += result.sent;
    for (const [what, count] of result.requests) total.requests.set(what, (total.requests.get(what) ?? 0) + count);
    total.idleS += result.idleS;
    total.idleRequests += result.idleRequests * result.idleS;
    for (const name of SHOWN) {
      total.idleMs.set(name, (total.idleMs.get(name) ?? 0) + result.idleRate.get(name));
      total.cpu.set(name, (total.cpu.get(name) ?? 0) + result.cpu.get(name));
      total.idleCpu.set(name, (total.idleCpu.get(name) ?? 0) + (result.idleRate.get(name) / result.idleS) * result.loadS);
    }
  }
  console.log('\nall rounds, CPU ms per accepted message: A | B | B ÷ A (net of the idle rate in brackets)');
  for (const name of SHOWN) {
    const [a, b] = totals.map((t) => t.cpu.get(name) / t.sent);
    const [na, nb] = totals.map((t) => (t.cpu.get(name) - t.idleCpu.get(name)) / t.sent);
    console.log(`  ${name.padEnd(14)} ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}   (${na.toFixed(3)} | ${nb.toFixed(3)} | ${(nb / na).toFixed(2)})`);
  }
  const [ta, tb] = totals.map((t) => SHOWN.reduce((sum, name) => sum + t.cpu.get(name), 0) / t.sent);
  console.log(`  ${'all shown'.padEnd(14)} ${ta.toFixed(3)} | ${tb.toFixed(3)} | ${(tb / ta).toFixed(2)}`);
  console.log('\nall rounds, idle CPU ms per second (BENCH_IDLE_SECONDS before each load): A | B | B ÷ A');
  for (const name of SHOWN) {
    const [a, b] = totals.map((t) => t.idleMs.get(name) / t.idleS);
    console.log(`  ${name.padEnd(14)} ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)}`);
  }
  const [ia, ib] = totals.map((t) => SHOWN.reduce((sum, name) => sum + t.idleMs.get(name), 0) / t.idleS);
  console.log(`  ${'all shown'.padEnd(14)} ${ia.toFixed(2)} | ${ib.toFixed(2)} | ${(ib / ia).toFixed(2)}`);
  const [ra, rb] = totals.map((t) => t.idleRequests / t.idleS);
  console.log(`  ${'services→kafka'.padEnd(14)} ${ra.toFixed(1)} | ${rb.toFixed(1)} | ${(rb / ra).toFixed(2)} requests/s`);
  console.log('\nall rounds, requests per accepted message: A | B | B ÷ A');
  for (const what of totals[0].requests.keys()) {
    const [a, b] = totals.map((t) => (t.requests.get(what) ?? 0) / t.sent);
    console.log(`  ${what.padEnd(20)} ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}`);
  }
  if (tallyEveryMs !== null) {
    console.log('\nall rounds, write-lock ms per accepted message (the runner\'s tally): A | B | B ÷ A');
    const collections = [...new Set(totals.flatMap((t) => [...t.locks.keys()]))];
    const lockOf = (t, what) => (t.locks.get(what) ?? 0) / t.sent;
    for (const what of collections.sort((x, y) => lockOf(totals[0], y) - lockOf(totals[0], x))) {
      const [a, b] = totals.map((t) => lockOf(t, what));
      console.log(`  ${what.padEnd(44)} ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}`);
    }
    const [la, lb] = totals.map((t) => [...t.locks.values()].reduce((sum, ms) => sum + ms, 0) / t.sent);
    console.log(`  ${'all'.padEnd(44)} ${la.toFixed(3)} | ${lb.toFixed(3)} | ${(lb / la).toFixed(2)}`);
    // Counts follow the traffic and the code, not the machine's load (unlike the lock's ms).
    console.log('\nall rounds, store write commands (statements) per accepted message: A | B | B ÷ A');
    const kinds = [...new Set(totals.flatMap((t) => [...t.commands.keys()]))].sort();
    for (const what of kinds) {
      const [[ca, sa], [cb, sb]] = totals.map((t) => (t.commands.get(what) ?? [0, 0]).map((n) => n / t.sent));
      if (ca < 0.001 && cb < 0.001) continue;
      console.log(`  ${what.padEnd(56)} ${ca.toFixed(3)} (${sa.toFixed(2)}) | ${cb.toFixed(3)} (${sb.toFixed(2)}) | ${(cb / ca).toFixed(2)}`);
    }
  }
} finally {
  await receivers?.close();
  if (aged) await dropAgedDatabases(infra, aged).catch((error) => console.error(`the aged databases not dropped: ${error.message}`));
  await shared.stop();
}
process.exit(0);
