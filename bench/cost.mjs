// node bench/cost.mjs — what one message costs the stack (issue 23), features off and on, in one run
// on the stack `npm start` uses (Kafka, FerretDB and Redis from the devstack, the services and the
// gateway as processes; bench/stack.mjs). Each figure is printed beside its goal, then a summary table.
//  0. the store's raw insertOne/s (plain driver, scratch database on the same FerretDB): the baseline;
//     every send rate is also given ÷ it; before it, the machine's speed for plain CPU work (bench/machineSpeed.mjs:
//     the CPU of a fixed SHA-256), since a shared VM's speed drifts between runs and the store's rate may not show it;
//  then twice, on an app of its own each: features off (nothing configured), and features on (one
//  webhook on `message_sent` to a local receiver, a custom push provider to a local fake with a push
//  token for every user, one blocking moderation rule over a list of 200 words the texts never
//  contain); 50 one-on-one pairs and 2 groups of 20 (bench/traffic.mjs):
//  1. sustained sends: BENCH_CLIENTS closed-loop clients for BENCH_DURATION s, sends/s and errors; before
//     it, BENCH_WARMUP s (10) of the same load, drained, so that the window measures services whose hot
//     code V8 has already optimised, as a running deployment's is (ADR 0137); the warm-up's own CPU per
//     message is printed beside it as the cold figure;
//  2. CPU ms per accepted message by process (gateway, each service, FerretDB, Kafka, Redis: utime +
//     stime from /proc/<pid>/stat, bench/processCpu.mjs) and in all, from just before the load until
//     the stack is idle again; beside it, the part the idle stack burns anyway (its CPU rate over
//     BENCH_IDLE_SAMPLE s before the load × the window);
//  3. write-lock ms per message by collection over the same window: the FerretDB runner's own tally
//     (FERRETDB_STATS_INTERVAL, set to 1s here unless given; `.infra/logs/ferretdb-<port>.log`);
//  4. time to idle: from the last answer of the load until every consumer group of the stack has lag 0
//     (bench/kafkaProbe.mjs: committed offsets against the log end);
//  5. open loop at each of BENCH_RATES (features on: BENCH_RATES_ON) for BENCH_OPEN_SECONDS: send
//     p50/p99 and visible p99 (until the receiver's conversation shows the message; a sample is
//     watched, bench/visibilityWatcher.mjs), all from the scheduled send; the event on Kafka p99 (a
//     fresh consumer on chat.messages.events, from the scheduled send); features on: webhook event →
//     delivered p99 and push → provider call p99, from the event's arrival at that consumer to the
//     local receiver's and the fake provider's first request for that message.
// Every request has a timeout and every wait a deadline; the stack and every helper stop on exit,
// failure and Ctrl-C. BENCH_QUICK=1: a smoke run of about three minutes (figures indicative only).
// Knobs: BENCH_DURATION, BENCH_CLIENTS, BENCH_OPEN_SECONDS, BENCH_RATES, BENCH_RATES_ON, BENCH_PHASES
// (off,on), BENCH_RAW_SECONDS, BENCH_IDLE_TIMEOUT, BENCH_DRAIN_TIMEOUT, BENCH_ARRIVAL_TIMEOUT,
// BENCH_VISIBLE_TIMEOUT, BENCH_REQUEST_TIMEOUT, BENCH_SETUP_TIMEOUT, BENCH_IDLE_SAMPLE (s), BENCH_WARMUP (s), BENCH_VISIBLE_SAMPLES,
// BENCH_POLL_BUDGET, BENCH_PAIRS, BENCH_GROUPS, BENCH_GROUP_SIZE, BENCH_MODERATION_WORDS.
// BENCH_AGED=1 (ADR 0074): after the phases on fresh databases, copies the apps they left into the
// same databases until they hold BENCH_AGED_BYTES (1 GiB; bench/agedHistory.mjs), plus
// BENCH_AGED_LIGHT_APPS (2,000) apps of configuration only, runs the phases again on new apps and
// prints aged ÷ fresh beside each figure and the collections whose store cost per command grew.
// Exits 1 when a phase could not be measured (its error is printed).
import { setTimeout as sleep } from 'node:timers/promises';
import { buildAgedHistory, databaseBytes, printAgedComparison, printTallyGrowth, waitForStoreToSettle } from './agedHistory.mjs';
import { addMessageSentWebhook, startFakeReceivers } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { connectKafkaProbe, sentMessageKey } from './kafkaProbe.mjs';
import { addBlockingKeywordRule, blockedTerms } from './moderationRule.mjs';
import { cpuSnapshot, stackProcesses } from './processCpu.mjs';
import { UNLIMITED_RATES, percentile, runBenchOn, startBenchStack } from './stack.mjs';
import { measureMachineSpeed } from './machineSpeed.mjs';
import { fmt, ms, printSummary } from './costSummary.mjs';
import { measureStoreRaw } from './store-raw.mjs';
import { busiestLock, fileSize, parseDuration, readTally, storeDataOf, storeLogOf } from './storeTally.mjs';
import { LATE_MS, createTraffic, inParallel } from './traffic.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
/** A knob: its environment variable, else the full run's or the quick run's default. */
const knob = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const list = (name, fallback) => (process.env[name] ?? fallback).split(',').map((v) => v.trim()).filter(Boolean);
const CONFIG = {
  rawSeconds: knob('BENCH_RAW_SECONDS', 5, 2),
  sustainedSeconds: knob('BENCH_DURATION', 30, 8),
  clients: knob('BENCH_CLIENTS', 50, 50),
  openSeconds: knob('BENCH_OPEN_SECONDS', 20, 5),
  ratesOff: list('BENCH_RATES', '100,200').map(Number),
  ratesOn: list('BENCH_RATES_ON', '100').map(Number),
  phases: list('BENCH_PHASES', 'off,on'),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 120, 30),
  drainTimeoutS: knob('BENCH_DRAIN_TIMEOUT', 120, 20),
  arrivalTimeoutS: knob('BENCH_ARRIVAL_TIMEOUT', 30, 10),
  visibleTimeoutS: knob('BENCH_VISIBLE_TIMEOUT', 10, 5),
  requestTimeoutS: knob('BENCH_REQUEST_TIMEOUT', 10, 10),
  setupTimeoutS: knob('BENCH_SETUP_TIMEOUT', 300, 120),
  idleSampleS: knob('BENCH_IDLE_SAMPLE', 5, 2),
  warmupS: knob('BENCH_WARMUP', 10, 3),
  visibleSamplesPerSecond: knob('BENCH_VISIBLE_SAMPLES', 20, 20),
  pollBudgetPerSecond: knob('BENCH_POLL_BUDGET', 200, 200),
  pairs: knob('BENCH_PAIRS', 50, 50),
  groups: knob('BENCH_GROUPS', 2, 2),
  groupSize: knob('BENCH_GROUP_SIZE', 20, 20),
  moderationWords: knob('BENCH_MODERATION_WORDS', 200, 200),
  aged: process.env.BENCH_AGED === '1',
  agedBytes: knob('BENCH_AGED_BYTES', 2 ** 30, 2 ** 30),
  agedLightApps: knob('BENCH_AGED_LIGHT_APPS', 2000, 2000),
};
/** The issue's goals; `off`/`on` where they differ by phase. */
const GOALS = {
  cpuPerMessage: { off: 2.5, on: 4 },
  writeLockPerMessage: { on: 2 },
  sustained: { off: 500, on: 300 },
  idleS: 5,
  sendP99At100: 50,
  kafkaP99At100: 50,
  visibleP99: { 100: 100, 200: 250 },
  webhookP99: 500,
  pushP99: 500,
};
/** Lines of the tally kept per phase: the busiest write and read namespaces. */
const TALLY_ROWS = { write: 14, read: 6 };

// The runner prints its tally only when started with it; 1 s keeps the load window's edges sharp.
process.env.FERRETDB_STATS_INTERVAL ??= '1s';
const STATS_INTERVAL_MS = parseDuration(process.env.FERRETDB_STATS_INTERVAL);

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8', ...UNLIMITED_RATES } });
const { onStop } = stack;
/** A phase that could not be measured (printed where it failed; the run goes on and exits 1). */
let phaseUnmeasured = false;
await runBenchOn(stack, run, () => phaseUnmeasured);

// ------------------------------------------------------------------------------------------------ run

async function run() {
  const client = createGatewayClient(stack.services.gatewayUrl, { timeoutMs: CONFIG.requestTimeoutS * 1000 });
  onStop(() => client.close());
  const probe = await connectKafkaProbe(stack.infra.kafkaBrokers);
  onStop(() => probe.close());
  /** The stack's consumer groups: each is named after its database, `chat_<service>_<suffix>`. */
  const stackGroups = (groupId) => groupId.endsWith(`_${stack.databaseSuffix}`);
  const benchApps = new Set();
  // Message ids are numbered per app: an arrival is keyed by app and id.
  const events = await probe.watchArrivals('chat.messages.events', sentMessageKey, () => benchApps);
  onStop(() => events.close());
  const { processes, missing } = stackProcesses(stack);
  const storeLog = storeLogOf(stack.infra.mongoUrl);

  console.log(
    `issue 23 cost of a message${QUICK ? ' (quick mode: shortened, figures indicative only)' : ''}: phases ${CONFIG.phases.join(', ')}; ` +
      `${CONFIG.pairs} pairs and ${CONFIG.groups} groups of ${CONFIG.groupSize}; ${CONFIG.sustainedSeconds} s sustained with ${CONFIG.clients} clients; ` +
      `${CONFIG.openSeconds} s per open-loop rate; processes watched: ${processes.map((p) => `${p.name} (${p.pid})`).join(', ')}` +
      (missing.length ? `; not found (reused or in a container): ${missing.join(', ')}` : ''),
  );

  // 0. The baseline: one writer and eight in flight (the services write concurrently); the better.
  const measureRaw = async () => {
    const raws = [];
    for (const concurrency of [1, 8]) raws.push(await measureStoreRaw({ mongoUrl: stack.infra.mongoUrl, sizes: [], concurrency, durationMs: CONFIG.rawSeconds * 1000 }));
    const best = Math.max(...raws.map((r) => r.insertOne.perSecond));
    console.log(`\n0. store raw insertOne: ${raws.map((r) => `${fmt(r.insertOne.perSecond)}/s with ${r.concurrency} in flight`).join(', ')}; baseline ${fmt(best)}/s`);
    const data = storeDataOf(stack.infra.mongoUrl);
    if (data) console.log(`   the store's data directory: ${data.databases} databases, ${(data.bytes / 1e6).toFixed(0)} MB (left by earlier runs on this port: an aged store is slower)`);
    return best;
  };
  // Beside the store's rate, what plain CPU costs now: a VM's speed drifts between runs (bench/machineSpeed.mjs).
  console.log(`\n${measureMachineSpeed().line}`);
  const rawInsertOne = await measureRaw();

  /** Waits until every consumer group of the stack has caught up; what was left when it gave up. */
  const drain = async (what, timeoutS) => {
    const r = await probe.waitForQuiet(stackGroups, timeoutS * 1000);
    if (!r.quiet) console.log(`  (still ${r.lag === null ? 'an unknown number of' : fmt(r.lag)} events behind ${fmt(r.waitedMs / 1000)} s after ${what})`);
    return r;
  };

  const measurePhases = async (raw, aged) => {
    const results = {};
    for (const phase of CONFIG.phases) {
      if (phase !== 'off' && phase !== 'on') throw new Error(`BENCH_PHASES: ${phase} is neither off nor on`);
      const on = phase === 'on';
      console.log(`\n${aged ? 'Aged data. ' : ''}${on ? 'Features on: a webhook on message_sent, a custom push provider with push tokens, a 200-word moderation rule' : 'Features off: nothing configured'}`);
      try {
        results[phase] = await measurePhase({ on, aged, client, probe, events, benchApps, drain, processes, storeLog, rawInsertOne: raw, stackGroups });
      } catch (error) {
        phaseUnmeasured = true;
        console.log(`  could not be measured: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
    return results;
  };
  const results = await measurePhases(rawInsertOne, false);
  const freshRows = printSummary(results, rawInsertOne, CONFIG, GOALS);
  if (!CONFIG.aged) return;

  // The aged run: the fresh run's apps copied into the same databases, then the same phases on new apps.
  console.log(`\nBuilding the aged history: the ${benchApps.size} apps above copied until the stack's databases hold ${fmt(CONFIG.agedBytes / 2 ** 20)} MiB, plus ${fmt(CONFIG.agedLightApps)} apps of configuration only`);
  const built = await buildAgedHistory({
    mongoUrl: stack.infra.mongoUrl,
    databaseSuffix: stack.databaseSuffix,
    templateApps: [...benchApps],
    targetBytes: CONFIG.agedBytes,
    lightApps: CONFIG.agedLightApps,
    log: (line) => console.log(`  ${line}`),
  });
  await drain('the aged history', CONFIG.drainTimeoutS);
  console.log(
    `  built in ${fmt(built.seconds)} s: ${fmt(built.written)} documents (${built.heavyCopies} full copies of the apps, ${fmt(built.lightApps)} configuration-only apps; ` +
      `${built.duplicates} left out by a unique index, ${built.skipped} with an _id that cannot be copied); the databases' files ${fmt(built.bytesBefore / 2 ** 20)} → ${fmt(built.bytesAfter / 2 ** 20)} MiB ` +
      `(${databaseBytes(stack.infra.mongoUrl, stack.databaseSuffix).dir})`,
  );
  console.log(`  documents per collection of the template apps: ${[...built.perApp].map(([c, { documents, bytes, light }]) => `${c} ${documents} (${fmt(bytes / 1024)} KiB${light ? ', light' : ''})`).join(', ')}`);
  if (built.notAged.length) console.log(`  not aged (documents that name no app): ${built.notAged.join(', ')}`);
  // The copy's last writes are still being checkpointed by the store: measured now, the first aged phase
  // would carry that work (session 7: its latencies 1.2–1.4 × fresh while the later phase's were not).
  const settle = await waitForStoreToSettle(processes.find((p) => p.name === 'ferretdb')?.pid);
  console.log(
    `  the copy's ${fmt(settle.dirtyMb)} MB of dirty pages written to disk (sync) in ${settle.syncS.toFixed(1)} s; ` +
      `the store ${settle.settled ? 'settled' : 'was still busy'} after ${fmt(settle.seconds)} s in all (its CPU under 5 % of a core for two 2 s windows)`,
  );
  const agedRaw = await measureRaw();
  const agedResults = await measurePhases(agedRaw, true);
  const agedRows = printSummary(agedResults, agedRaw, CONFIG, GOALS);
  printAgedComparison(freshRows, agedRows);
  printTallyGrowth(results, agedResults);
}

/** One phase: its own app and conversations, the sustained load with its cost, then the open loops. */
async function measurePhase({ on, aged, client, probe, events, benchApps, drain, processes, storeLog, rawInsertOne, stackGroups }) {
  const setupStarted = performance.now();
  const app = await stack.createApp(`cost${aged ? ' (aged)' : ''}: features ${on ? 'on' : 'off'}`);
  benchApps.add(app.appId);
  const traffic = createTraffic({ client, chat: app.chat, setupTimeoutS: CONFIG.setupTimeoutS });
  const targets = await traffic.createTargets({ prefix: on ? 'on' : 'off', pairs: CONFIG.pairs, groups: CONFIG.groups, groupSize: CONFIG.groupSize, patienceMs: CONFIG.setupTimeoutS * 1000 });
  const { hooks, push } = on ? await startFakeReceivers(onStop) : { hooks: null, push: null };
  if (on) {
    // On aged data the delivery process may take longer to load a new app's webhooks (ADR 0074): the set-up time shows it.
    await addMessageSentWebhook(stack, app, 'cost-hook', hooks.url, CONFIG.setupTimeoutS * 1000);
    await traffic.must('POST', '/v3/notifications/push/v1/providers/custom', app.chat, { isEnabled: true, webhookURL: push.url, useBasicAuth: false });
    const users = [...new Set(targets.flatMap((t) => (t.kind === 'user' ? [t.a, t.b] : t.members)))];
    // A push token per user, registered under a session of the user's (the notifications service
    // learns sessions from the users service's events, so a first attempt may be refused).
    await inParallel(users, 16, async (uid) => {
      const { data } = await traffic.must('POST', `/v3/users/${uid}/auth_tokens`, app.chat, {});
      await traffic.must('POST', '/v3/notifications/push/v1/tokens', app.chat, { platform: 'fcm_android', fcmToken: `cost-${uid}`, authToken: data.authToken }, CONFIG.setupTimeoutS * 1000);
    });
    const pair = targets.find((t) => t.kind === 'user');
    await addBlockingKeywordRule(stack, app, client, { id: 'cost-words', terms: blockedTerms(CONFIG.moderationWords), sender: pair.a, receiver: pair.b });
    // A first message through every feature: the webhook and the provider are live before the load.
    const warm = await traffic.must('POST', '/v3/messages', { ...app.chat, onbehalfof: pair.a }, { receiver: pair.b, receiverType: 'user', type: 'text', data: { text: 'features warm-up' } });
    const warmId = String(warm.data.id);
    const deadline = performance.now() + CONFIG.arrivalTimeoutS * 1000;
    while (performance.now() < deadline && !(hooks.arrivals.has(warmId) && push.arrivals.has(warmId))) await sleep(50);
    if (!hooks.arrivals.has(warmId) || !push.arrivals.has(warmId)) {
      throw new Error(`the features are not live: webhook ${hooks.arrivals.has(warmId) ? 'delivered' : 'not delivered'}, push ${push.arrivals.has(warmId) ? 'called' : 'not called'} within ${CONFIG.arrivalTimeoutS} s`);
    }
  }
  await drain('the set-up', CONFIG.drainTimeoutS);
  console.log(`  set up in ${fmt((performance.now() - setupStarted) / 1000)} s: ${targets.length} conversations`);
  const warmup = CONFIG.warmupS > 0 ? await warmUp(traffic, targets, { processes, probe, stackGroups }) : null;

  // 1-4. The sustained load, its CPU and write-lock cost, and the time until the stack is idle again.
  const logFrom = fileSize(storeLog);
  const hookRequestsBefore = hooks?.requests() ?? 0;
  const pushRequestsBefore = push?.requests() ?? 0;
  // What the idle stack burns (consumers polling, timers) over a few seconds, to tell it from the load's cost.
  const idleFrom = cpuSnapshot(processes);
  const idleStarted = performance.now();
  await sleep(CONFIG.idleSampleS * 1000);
  const cpuBefore = cpuSnapshot(processes);
  const idleRate = new Map([...cpuBefore.since(idleFrom)].map(([name, used]) => [name, used / ((performance.now() - idleStarted) / 1000)]));
  const windowStarted = performance.now();
  const sustained = await traffic.sustainedSends(targets, { clients: CONFIG.clients, seconds: CONFIG.sustainedSeconds });
  const idle = await probe.waitForQuiet(stackGroups, CONFIG.idleTimeoutS * 1000);
  const cpu = cpuSnapshot(processes).since(cpuBefore);
  const windowS = (performance.now() - windowStarted) / 1000;
  // The report covering the last second of the window is printed up to one interval later.
  await sleep(STATS_INTERVAL_MS * 1.5);
  const tally = readTally(storeLog, logFrom, fileSize(storeLog), stack.databaseSuffix);
  const sent = sustained.sent;
  const cpuPerMessage = new Map([...cpu].map(([name, msUsed]) => [name, msUsed / sent]));
  const cpuTotal = [...cpuPerMessage.values()].reduce((a, b) => a + b, 0);
  const idlePerMessage = new Map([...idleRate].map(([name, rate]) => [name, (rate * windowS) / sent]));
  const idleTotal = [...idlePerMessage.values()].reduce((a, b) => a + b, 0);
  const writeLockPerMessage = tally ? tally.writeBusyMs / sent : NaN;
  const busiestDatabase = tally ? busiestLock(tally) : null;
  console.log(
    `  sustained: ${fmt(sustained.perSecond)} sends/s, ${sustained.errors} (send p50 ${ms(sustained.p50)}, p99 ${ms(sustained.p99)}); ` +
      `÷ raw insertOne ${fmt(sustained.perSecond / rawInsertOne, 3)}`,
  );
  console.log(
    `  time to idle after the load: ${idle.quiet ? `${fmt(idle.waitedMs / 1000, 1)} s` : `not idle within ${CONFIG.idleTimeoutS} s (${idle.lag === null ? 'lag unknown' : `${fmt(idle.lag)} events behind`}); the costs below are lower bounds`}` +
      (on ? `; meanwhile the webhook receiver got ${hooks.requests() - hookRequestsBefore} requests and the push provider ${push.requests() - pushRequestsBefore} for ${sent} messages` : ''),
  );
  console.log(
    `  CPU per message (${sent} messages, ${fmt(windowS, 1)} s from before the load until idle): ${fmt(cpuTotal, 2)} ms in all; ` +
      `of which the idle stack's own ${fmt(idleTotal, 2)} ms (its rate over ${CONFIG.idleSampleS} s before the load × the window)`,
  );
  for (const [name, perMessage] of [...cpuPerMessage].sort((a, b) => b[1] - a[1])) {
    console.log(`    ${name.padEnd(16)} ${fmt(perMessage, 2).padStart(7)} ms  (idle ${fmt(idlePerMessage.get(name), 2)})`);
  }
  if (tally) {
    console.log(
      `  write lock per message (the store's tally, ${tally.reports} reports): ${fmt(writeLockPerMessage, 2)} ms in all; ` +
        `the busiest database's ${fmt(busiestDatabase.busyMs / sent, 2)} ms (${busiestDatabase.database}: the bound with a lock per database, the runner's --write-lock=database, ADR 0046)`,
    );
    for (const kind of ['write', 'read']) {
      const rows = tally.rows.filter((r) => r.kind === kind).sort((a, b) => b.busyMs - a.busyMs);
      for (const row of rows.slice(0, TALLY_ROWS[kind])) {
        console.log(
          `    ${kind} ${row.command.padEnd(10)} ${row.collection.padEnd(44)} ${fmt(row.busyMs / sent, 3).padStart(7)} ms ` +
            `${fmt(row.statements / sent, 2).padStart(6)} stmts ${fmt(row.commands / sent, 2).padStart(6)} cmds per message`,
        );
      }
      if (rows.length > TALLY_ROWS[kind]) console.log(`    … ${rows.length - TALLY_ROWS[kind]} more ${kind} rows, ${fmt(rows.slice(TALLY_ROWS[kind]).reduce((a, r) => a + r.busyMs, 0) / sent, 3)} ms per message`);
    }
  } else {
    console.log(`  write lock per message: no tally in ${storeLog} (a FerretDB this run did not start, or started without FERRETDB_STATS_INTERVAL)`);
  }

  // 5. The open loops: latencies below capacity.
  const open = [];
  for (const rate of on ? CONFIG.ratesOn : CONFIG.ratesOff) {
    const before = await drain(`the step before ${rate} msg/s`, CONFIG.drainTimeoutS);
    const answered = [];
    const r = await traffic.openLoop(targets, rate, {
      seconds: CONFIG.openSeconds,
      visibleSamplesPerSecond: CONFIG.visibleSamplesPerSecond,
      pollBudgetPerSecond: CONFIG.pollBudgetPerSecond,
      visibleTimeoutS: CONFIG.visibleTimeoutS,
      onAnswered: (a) => answered.push(a),
    });
    // Events, deliveries and provider calls still on their way get until the arrival deadline.
    const arrived = () => answered.every((a) => events.arrivals.has(`${app.appId}/${a.id}`) && (!on || (hooks.arrivals.has(a.id) && push.arrivals.has(a.id))));
    const deadline = performance.now() + CONFIG.arrivalTimeoutS * 1000;
    while (performance.now() < deadline && !arrived()) await sleep(50);
    const onKafka = (a) => events.arrivals.get(`${app.appId}/${a.id}`);
    const kafka = delays(answered, onKafka, (a) => a.scheduledAt);
    // From the event (its arrival at the fresh consumer), not the send's answer: under load the answer
    // can reach the client after the delivery does.
    const webhook = on ? delays(answered, (a) => hooks.arrivals.get(a.id), onKafka) : null;
    const pushed = on ? delays(answered, (a) => push.arrivals.get(a.id), onKafka) : null;
    const o = { ...r, backlog: before.quiet ? 0 : before.lag, kafka, webhook, push: pushed };
    open.push(o);
    console.log(
      `  open loop ${rate} msg/s: answered ${fmt(r.achieved)}/s (÷ raw insertOne ${fmt(r.achieved / rawInsertOne, 3)}), ${r.errors}, ${r.late} of ${r.offered} started >${LATE_MS} ms late` +
        `${o.backlog ? `, started with ${fmt(o.backlog)} events of backlog` : ''}\n` +
        `    send p50 ${ms(r.sendP50)} p99 ${ms(r.sendP99)}; event on Kafka p50 ${ms(kafka.p50)} p99 ${ms(kafka.p99)}${missingNote(kafka)}; ` +
        `visible p50 ${ms(r.visibleP50)} p99 ${ms(r.visibleP99)} [${r.samples} watched, ${r.notVisible} not visible within ${CONFIG.visibleTimeoutS} s]` +
        (on
          ? `\n    webhook event → delivered p50 ${ms(webhook.p50)} p99 ${ms(webhook.p99)}${missingNote(webhook)}; ` +
            `push → provider call p50 ${ms(pushed.p50)} p99 ${ms(pushed.p99)}${missingNote(pushed)}`
          : ''),
    );
  }
  await drain('the open loops', CONFIG.drainTimeoutS);
  return { sustained, idle, cpuPerMessage, cpuTotal, idleTotal, writeLockPerMessage, busiestDatabase, tally, open, warmup };
}

/**
 * The same closed-loop load for BENCH_WARMUP s, then until the stack is idle: a fresh service runs its
 * send path unoptimised (V8 optimises a function only after it has run hot, on a compiler thread that
 * shares the two cores), so a window opened cold charges each message part of that one-time work.
 * Returns the warm-up's own CPU per message: what the first seconds of a fresh deployment cost.
 */
async function warmUp(traffic, targets, { processes, probe, stackGroups }) {
  const before = cpuSnapshot(processes);
  const load = await traffic.sustainedSends(targets, { clients: CONFIG.clients, seconds: CONFIG.warmupS });
  await probe.waitForQuiet(stackGroups, CONFIG.idleTimeoutS * 1000);
  const used = [...cpuSnapshot(processes).since(before).values()].reduce((a, b) => a + b, 0);
  const cpuPerMessage = load.sent ? used / load.sent : NaN;
  console.log(`  warm-up: ${CONFIG.warmupS} s of the same load (${fmt(load.perSecond)} sends/s, ${load.errors}), until idle: ${fmt(cpuPerMessage, 2)} ms of CPU per message, cold`);
  return { perSecond: load.perSecond, cpuPerMessage };
}

// ------------------------------------------------------------------------------------------- figures

/** p50/p99 of `at(send) − from(send)` over the answered sends; `missing`: either time never came. */
function delays(answered, at, from) {
  const values = [];
  let missing = 0;
  for (const a of answered) {
    const end = at(a);
    const start = from(a);
    if (end === undefined || start === undefined) missing += 1;
    else values.push(end - start);
  }
  values.sort((a, b) => a - b);
  return { p50: percentile(values, 50), p99: percentile(values, 99), count: values.length, missing };
}

function missingNote(d) {
  return d.missing ? ` (${d.missing} of ${d.count + d.missing} never arrived within ${CONFIG.arrivalTimeoutS} s)` : '';
}
