// node bench/process-cost.mjs — the Node processes' CPU per message and the idle stack's CPU per second
// (issue 23, ADR 0047), on one app with every feature on (a webhook on `message_sent`, a custom push
// provider with a token per user, a 200-word moderation rule; cost.mjs's features-on phase, smaller):
//  1. idle: CPU ms per second of each process (utime + stime from /proc, bench/processCpu.mjs) over
//     BENCH_IDLE_SECONDS with nothing sent, after the set-up has drained;
//  2. load: an open loop at BENCH_RATE msg/s for BENCH_SECONDS (a fixed rate: the same work before and
//     after a change, unlike a closed loop whose rate moves with the change), then until every consumer
//     group has caught up; CPU ms per accepted message by process, in all and net of the idle rate.
// With SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" the services write V8 profiles on exit; the
// windows of both phases are written to <dir>/windows.json (CLOCK_MONOTONIC µs, the clock V8 stamps its
// samples with), so bench/cpuProfileSummary.mjs can tell each process's self/total costs in the window.
// Knobs: BENCH_RATE (100), BENCH_SECONDS (20), BENCH_IDLE_SECONDS (10), BENCH_PAIRS (20), BENCH_GROUPS (1),
// BENCH_GROUP_SIZE (20), BENCH_IDLE_TIMEOUT (60), BENCH_FEATURES (on; `off` configures none of the three:
// cost.mjs's features-off phase).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { addMessageSentWebhook, startPushProvider, startWebhookReceiver } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { connectKafkaProbe } from './kafkaProbe.mjs';
import { addBlockingKeywordRule, blockedTerms } from './moderationRule.mjs';
import { cpuSnapshot, kafkaRequests as kafkaRequestsTo, stackProcesses } from './processCpu.mjs';
import { runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic, inParallel } from './traffic.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  rate: knob('BENCH_RATE', 100),
  seconds: knob('BENCH_SECONDS', 20),
  idleSeconds: knob('BENCH_IDLE_SECONDS', 10),
  pairs: knob('BENCH_PAIRS', 20),
  groups: knob('BENCH_GROUPS', 1),
  groupSize: knob('BENCH_GROUP_SIZE', 20),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 60),
  features: process.env.BENCH_FEATURES !== 'off',
};
const profileDir = /--cpu-prof-dir=(\S+)/.exec(process.env.SERVICE_NODE_ARGS ?? '')?.[1];
/** CLOCK_MONOTONIC in µs: V8's profile timestamps are on this clock in every process. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
const kafkaRequests = () => kafkaRequestsTo(stack.infra.kafkaBrokers);
await runBenchOn(stack, run);

/** Each service's configuration fence rounds so far, from its /metrics (services without a fence are left out). */
async function fenceRounds() {
  const rounds = new Map();
  for (const instance of stack.services.instances) {
    const text = await fetch(`${instance.url}/metrics`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.text()).catch(() => '');
    for (const line of text.split('\n')) {
      if (line.startsWith('configuration_fence_rounds{')) rounds.set(instance.service, (rounds.get(instance.service) ?? 0) + Number(line.split(' ').pop()));
    }
  }
  return rounds;
}

async function run() {
  const client = createGatewayClient(stack.services.gatewayUrl, { timeoutMs: 10_000 });
  stack.onStop(() => client.close());
  const probe = await connectKafkaProbe(stack.infra.kafkaBrokers);
  stack.onStop(() => probe.close());
  const stackGroups = (groupId) => groupId.endsWith(`_${stack.databaseSuffix}`);
  const { processes } = stackProcesses(stack);

  const app = await stack.createApp('process cost');
  const traffic = createTraffic({ client, chat: app.chat, setupTimeoutS: 120 });
  const targets = await traffic.createTargets({ prefix: 'pc', pairs: CONFIG.pairs, groups: CONFIG.groups, groupSize: CONFIG.groupSize, patienceMs: 120_000 });
  const hooks = await startWebhookReceiver();
  stack.onStop(hooks.close);
  const push = await startPushProvider();
  stack.onStop(push.close);
  const pair = targets.find((t) => t.kind === 'user');
  if (CONFIG.features) {
    await addMessageSentWebhook(stack, app, 'pc-hook', hooks.url);
    await traffic.must('POST', '/v3/notifications/push/v1/providers/custom', app.chat, { isEnabled: true, webhookURL: push.url, useBasicAuth: false });
    const users = [...new Set(targets.flatMap((t) => (t.kind === 'user' ? [t.a, t.b] : t.members)))];
    await inParallel(users, 16, async (uid) => {
      const { data } = await traffic.must('POST', `/v3/users/${uid}/auth_tokens`, app.chat, {});
      await traffic.must('POST', '/v3/notifications/push/v1/tokens', app.chat, { platform: 'fcm_android', fcmToken: `pc-${uid}`, authToken: data.authToken }, 120_000);
    });
    await addBlockingKeywordRule(stack, app, client, { id: 'pc-words', terms: blockedTerms(200), sender: pair.a, receiver: pair.b });
  }
  await traffic.must('POST', '/v3/messages', { ...app.chat, onbehalfof: pair.a }, { receiver: pair.b, receiverType: 'user', type: 'text', data: { text: 'warm-up' } });
  await probe.waitForQuiet(stackGroups, CONFIG.idleTimeoutS * 1000);
  // Timers and caches the set-up started settle first (fences, head saves, group rebalances).
  await sleep(3_000);

  const idleRequestsFrom = kafkaRequests();
  const idleFrom = cpuSnapshot(processes);
  const idleStartUs = monotonicUs();
  const idleStarted = performance.now();
  await sleep(CONFIG.idleSeconds * 1000);
  const idleCpu = cpuSnapshot(processes).since(idleFrom);
  const idleS = (performance.now() - idleStarted) / 1000;
  const idleEndUs = monotonicUs();
  const idleRequests = kafkaRequests();

  const roundsBefore = await fenceRounds();
  const hooksBefore = hooks.requests();
  const pushBefore = push.requests();
  const loadRequestsFrom = kafkaRequests();
  const loadFrom = cpuSnapshot(processes);
  const loadStartUs = monotonicUs();
  const loadStarted = performance.now();
  const r = await traffic.openLoop(targets, CONFIG.rate, { seconds: CONFIG.seconds, visibleSamplesPerSecond: 1, pollBudgetPerSecond: 10, visibleTimeoutS: 5 });
  const quiet = await probe.waitForQuiet(stackGroups, CONFIG.idleTimeoutS * 1000);
  const loadCpu = cpuSnapshot(processes).since(loadFrom);
  const loadS = (performance.now() - loadStarted) / 1000;
  const loadEndUs = monotonicUs();
  const loadRequests = kafkaRequests();
  const sent = Math.round(r.achieved * CONFIG.seconds);
  const roundsAfter = await fenceRounds();

  console.log(
    `process cost: ${CONFIG.rate} msg/s for ${CONFIG.seconds} s, ${sent} accepted, ${r.errors}; send p50 ${r.sendP50?.toFixed(0)} ms p99 ${r.sendP99?.toFixed(0)} ms; ` +
      `${quiet.quiet ? `idle ${(quiet.waitedMs / 1000).toFixed(1)} s after` : 'NOT idle'}; webhook requests ${hooks.requests() - hooksBefore}, push requests ${push.requests() - pushBefore}`,
  );
  console.log(`${'process'.padEnd(16)} ${'idle ms/s'.padStart(10)} ${'ms/msg'.padStart(8)} ${'net ms/msg'.padStart(11)} ${'kafka req/s idle'.padStart(17)} ${'kafka req/msg'.padStart(14)}`);
  let totals = [0, 0, 0, 0, 0];
  for (const { name, pid } of processes) {
    const idleReq = ((idleRequests.get(pid) ?? 0) - (idleRequestsFrom.get(pid) ?? 0)) / idleS;
    const loadReq = ((loadRequests.get(pid) ?? 0) - (loadRequestsFrom.get(pid) ?? 0)) / sent;
    const idleRate = idleCpu.get(name) / idleS;
    const perMessage = loadCpu.get(name) / sent;
    const net = perMessage - (idleRate * loadS) / sent;
    totals = [totals[0] + idleRate, totals[1] + perMessage, totals[2] + net, totals[3] + idleReq, totals[4] + loadReq];
    console.log(`${name.padEnd(16)} ${idleRate.toFixed(1).padStart(10)} ${perMessage.toFixed(2).padStart(8)} ${net.toFixed(2).padStart(11)} ${idleReq.toFixed(1).padStart(17)} ${loadReq.toFixed(2).padStart(14)}`);
  }
  console.log(`${'all'.padEnd(16)} ${totals[0].toFixed(1).padStart(10)} ${totals[1].toFixed(2).padStart(8)} ${totals[2].toFixed(2).padStart(11)} ${totals[3].toFixed(1).padStart(17)} ${totals[4].toFixed(2).padStart(14)}`);
  const rounds = [...roundsAfter].map(([name, n]) => `${name} ${((n - (roundsBefore.get(name) ?? 0)) / sent).toFixed(2)}`);
  console.log(`configuration fence rounds (watermark reads) per message: ${rounds.join(', ') || 'none'}`);
  if (profileDir) {
    const windows = {
      pids: Object.fromEntries(processes.map(({ name, pid }) => [pid, name])),
      idle: { fromUs: idleStartUs, toUs: idleEndUs, seconds: idleS },
      load: { fromUs: loadStartUs, toUs: loadEndUs, messages: sent },
    };
    writeFileSync(join(profileDir, 'windows.json'), JSON.stringify(windows, null, 2));
  }
}
