// npm run chaos: the fault-injection run of issue 14. Starts the stack (REPLICAS per service, default 1),
// drives a paced load of unique text messages over one-on-one and group conversations, and meanwhile
// kills -9, one at a time, the messages service, the conversations service, Kafka, FerretDB and Redis,
// restarting each a few seconds later. After the load it checks through the gateway, until it holds or
// CHAOS_CONVERGE_S passes:
//   - every acknowledged message is in its conversation's message list exactly once (lost, duplicated);
//   - the list keeps the order the messages were acknowledged in (one sender per conversation, one send
//     in flight at a time, so acknowledgement order is the order the service decided them in);
//   - each conversation's last message and each receiver's unread count agree with the list (mismatches);
//   - no answer during the run was a 5xx other than 502/503/504.
// Prints acknowledged, lost, duplicated, read-model mismatches, converged-in seconds (after the load
// ended) and, per fault, how long after the part was back the first message was acknowledged again.
//
// Settings (environment): CHAOS_DOWN_S (default 5) seconds each part stays down, CHAOS_GAP_S (8) seconds
// of calm between faults, CHAOS_PACE_MS (150) pause between a lane's sends, CHAOS_CONVERGE_S (90).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { startBenchStack } from './stack.mjs';

const DOWN_S = Number(process.env.CHAOS_DOWN_S ?? 5);
const GAP_S = Number(process.env.CHAOS_GAP_S ?? 8);
const PACE_MS = Number(process.env.CHAOS_PACE_MS ?? 150);
const CONVERGE_S = Number(process.env.CHAOS_CONVERGE_S ?? 90);
const FAULTS = (process.env.CHAOS_FAULTS ?? 'messages,conversations,kafka,ferretdb,redis').split(',');
const REQUEST_TIMEOUT_MS = 20_000;

const stack = await startBenchStack({ name: 'chaos', extraEnv: { LOG_LEVEL: 'warn' } });
const { infra, services, app } = stack;
const client = createGatewayClient(services.gatewayUrl, { timeoutMs: REQUEST_TIMEOUT_MS });
stack.onStop(() => client.close());
const t0 = performance.now();
const seconds = () => (performance.now() - t0) / 1000;
const log = (line) => process.stderr.write(`[chaos ${seconds().toFixed(1).padStart(6)} s] ${line}\n`);

/** Every answer of the run, to count the 5xx that are not an outage's 502/503/504. */
const statusCounts = new Map();
const count = (status) => statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
const as = (uid) => ({ ...app.chat, ...(uid ? { onbehalfof: uid } : {}) });

async function must(method, path, uid, body) {
  const answer = await client.request(method, path, as(uid), body);
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

// The conversations: four one-on-one (one sender each) and two groups (the owner sends, three read).
const run = randomBytes(2).toString('hex');
const lanes = [];
for (let i = 1; i <= 4; i++) {
  const from = `s${i}`;
  const to = `r${i}`;
  lanes.push({ name: `${from}>${to}`, from, receiverType: 'user', receiver: to, readers: [to], listPath: `/v3/users/${to}/messages`, listAs: from });
}
for (let i = 1; i <= 2; i++) {
  const guid = `g${i}-${run}`;
  const members = [`m${i}a`, `m${i}b`, `m${i}c`];
  lanes.push({ name: guid, from: `o${i}`, receiverType: 'group', receiver: guid, readers: members, listPath: `/v3/groups/${guid}/messages`, listAs: `o${i}` });
}
const uids = [...new Set(lanes.flatMap((lane) => [lane.from, ...(lane.receiverType === 'user' ? [lane.receiver] : lane.readers)]))];
for (const uid of uids) await must('POST', '/v3/users', undefined, { uid, name: uid });
for (const lane of lanes.filter((l) => l.receiverType === 'group')) {
  await must('POST', '/v3/groups', lane.from, { guid: lane.receiver, name: lane.receiver, type: 'public', members: { participants: lane.readers } });
}
// A first message per lane through the retry loop: every fact a send needs has reached the messages service.
for (const lane of lanes) {
  for (let attempt = 0; ; attempt++) {
    const answer = await client.request('POST', '/v3/messages', as(lane.from), text(lane, `warm-up ${lane.name}`));
    count(answer.status);
    if (answer.status === 200) break;
    if (attempt > 100) throw new Error(`lane ${lane.name} cannot send: ${answer.status} ${JSON.stringify(answer.body)}`);
    await sleep(200);
  }
}

function text(lane, words) {
  return { receiver: lane.receiver, receiverType: lane.receiverType, category: 'message', type: 'text', data: { text: words } };
}

/** Acknowledged sends per lane (in order), and every attempt's time and outcome. */
const acknowledged = new Map(lanes.map((lane) => [lane.name, []]));
const attempts = [];
let loading = true;

async function drive(lane) {
  for (let seq = 1; loading; seq++) {
    const words = `chaos ${run} ${lane.name} #${seq}`;
    const at = seconds();
    const answer = await client.request('POST', '/v3/messages', as(lane.from), text(lane, words));
    count(answer.status);
    attempts.push({ at, done: seconds(), status: answer.status });
    if (answer.status === 200) acknowledged.get(lane.name).push({ text: words, id: answer.body.data.id });
    await sleep(PACE_MS);
  }
}

// The fault schedule: one part at a time, down for DOWN_S, then GAP_S of calm.
const faults = [];
async function inject() {
  await sleep(GAP_S * 1000);
  for (const part of FAULTS) {
    const isInfra = ['kafka', 'ferretdb', 'redis'].includes(part);
    const fault = { part, killedAt: seconds() };
    if (isInfra) await infra.kill(part);
    // With replicas, every replica of the service goes down: the point is an outage, not a failover.
    else await Promise.all(services.instances.filter((i) => i.service === part).map((i) => i.kill()));
    log(`killed -9 ${part}`);
    await sleep(DOWN_S * 1000);
    fault.restartedAt = seconds();
    if (isInfra) await infra.restart(part);
    else await Promise.all(services.instances.filter((i) => i.service === part).map((i) => i.restart()));
    fault.backAt = seconds();
    log(`${part} is back (restart took ${(fault.backAt - fault.restartedAt).toFixed(1)} s)`);
    faults.push(fault);
    await sleep(GAP_S * 1000);
  }
}

log(`load on ${lanes.length} conversations, faults: ${FAULTS.join(', ')}`);
const drivers = lanes.map(drive);
await inject();
loading = false;
await Promise.all(drivers);
const loadEnded = seconds();
const lastBack = Math.max(...faults.map((f) => f.backAt));
log('load ended; checking until the read models agree with what was acknowledged');

/** Checks every lane once; answers the findings (all zero when converged). */
async function check() {
  const findings = { lost: 0, duplicated: 0, outOfOrder: 0, mismatches: 0, unreadable: 0, details: [] };
  for (const lane of lanes) {
    const listed = await client.request('GET', `${lane.listPath}?limit=1000`, as(lane.listAs));
    if (listed.status !== 200) {
      findings.unreadable += 1;
      findings.details.push(`${lane.name}: list answered ${listed.status}`);
      continue;
    }
    const messages = listed.body.data.filter((m) => m.category === 'message' && m.sender === lane.from);
    const seen = new Map();
    for (const m of messages) seen.set(m.data.text, (seen.get(m.data.text) ?? 0) + 1);
    const acked = acknowledged.get(lane.name);
    for (const { text: words } of acked) {
      const times = seen.get(words) ?? 0;
      if (times === 0) findings.lost += 1;
      if (times > 1) findings.duplicated += times - 1;
    }
    // Order: the acknowledged messages appear in the list (sorted by id) in the order they were acknowledged.
    const position = new Map([...messages].sort((a, b) => Number(a.id) - Number(b.id)).map((m, index) => [m.data.text, index]));
    const order = acked.map((a) => position.get(a.text)).filter((p) => p !== undefined);
    for (let i = 1; i < order.length; i++) if (order[i] < order[i - 1]) findings.outOfOrder += 1;
    // The read models of the conversations service: last message and unread count per receiver.
    const last = messages.reduce((a, b) => (Number(b.id) > Number(a.id) ? b : a), messages[0]);
    for (const reader of lane.readers) {
      const path = lane.receiverType === 'user' ? `/v3/users/${lane.from}/conversation` : `/v3/groups/${lane.receiver}/conversation`;
      const conversation = await client.request('GET', path, as(reader));
      if (conversation.status !== 200) {
        findings.unreadable += 1;
        findings.details.push(`${lane.name} as ${reader}: conversation answered ${conversation.status}`);
        continue;
      }
      const data = conversation.body.data;
      // Nobody reads during the run, so a receiver's unread count is every message it received.
      const unreadOk = Number(data.unreadMessageCount) === messages.length;
      const lastOk = String(data.lastMessage?.id) === String(last?.id);
      if (!unreadOk || !lastOk) {
        findings.mismatches += 1;
        findings.details.push(`${lane.name} as ${reader}: unread ${data.unreadMessageCount} vs ${messages.length}, last ${data.lastMessage?.id} vs ${last?.id}`);
      }
    }
  }
  return findings;
}

let findings;
let convergedIn = null;
const checkStart = seconds();
let lastReport = 0;
for (;;) {
  // Converged when a check that began then finds everything right (a check itself takes a moment).
  const began = seconds();
  findings = await check();
  const clean = findings.lost + findings.duplicated + findings.outOfOrder + findings.mismatches + findings.unreadable === 0;
  if (!clean && seconds() - lastReport >= 2) {
    lastReport = seconds();
    const counts = `lost ${findings.lost}, duplicated ${findings.duplicated}, out of order ${findings.outOfOrder}`;
    log(`not yet (check took ${(seconds() - began).toFixed(1)} s): ${counts}; ${findings.details.slice(0, 3).join('; ')}`);
  }
  if (clean) {
    convergedIn = Math.max(0, began - loadEnded);
    break;
  }
  if (seconds() - checkStart > CONVERGE_S) break;
  await sleep(250);
}

const ackTotal = [...acknowledged.values()].reduce((sum, list) => sum + list.length, 0);
const serverErrors = [...statusCounts].filter(([status]) => status >= 500 && ![502, 503, 504].includes(status));
const recoveries = faults.map((fault) => {
  const firstOk = attempts.filter((a) => a.status === 200 && a.at >= fault.backAt).reduce((min, a) => Math.min(min, a.done), Infinity);
  return { part: fault.part, down_s: +(fault.backAt - fault.killedAt).toFixed(1), serving_again_after_s: +(firstOk - fault.backAt).toFixed(1) };
});
const report = {
  replicas: services.instances.filter((i) => i.service === 'messages').length,
  acknowledged: ackTotal,
  attempts: attempts.length,
  lost: findings.lost,
  duplicated: findings.duplicated,
  out_of_order: findings.outOfOrder,
  read_model_mismatches: findings.mismatches + findings.unreadable,
  converged_in_s: convergedIn === null ? `not within ${CONVERGE_S}` : +convergedIn.toFixed(1),
  converged_after_last_restart_s: convergedIn === null ? null : +(loadEnded + convergedIn - lastBack).toFixed(1),
  statuses: Object.fromEntries([...statusCounts].sort(([a], [b]) => a - b)),
  other_5xx: serverErrors.reduce((sum, [, n]) => sum + n, 0),
  recoveries,
};
if (findings.details.length > 0) log(`unresolved: ${findings.details.slice(0, 10).join('; ')}`);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(
  `acknowledged ${report.acknowledged}, lost ${report.lost}, duplicated ${report.duplicated}, ` +
    `read-model mismatches ${report.read_model_mismatches}, out of order ${report.out_of_order}, other 5xx ${report.other_5xx}, ` +
    `converged in ${report.converged_in_s} s after the load (${report.converged_after_last_restart_s} s after the last restart)\n`,
);
await stack.stop();
const failed = report.lost + report.duplicated + report.read_model_mismatches + report.out_of_order + report.other_5xx > 0 || convergedIn === null;
process.exit(failed ? 1 : 0);
