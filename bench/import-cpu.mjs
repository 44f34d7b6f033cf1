// node bench/import-cpu.mjs <build root A> <build root B> — CPU ms per imported user by process, two
// builds of the stack alternated on one Kafka, FerretDB and Redis (as send-path-cpu.mjs does, ADR 0071):
// each round starts one build's services and gateway (its own `dist`, its own databases), creates an
// app, waits until every consumer group is idle, reads each process's CPU over BENCH_IDLE_SECONDS, then
// imports BENCH_USERS users (`POST /v3/data_import/users`, 50 a request, BENCH_CONCURRENCY in flight)
// and waits until the groups are idle again. Rounds go A B B A …, so a drift in the machine's other load
// falls on both builds alike. Printed per round and summed per build: CPU ms per user in all and net of
// the idle rate, B ÷ A, and the Kafka records per user the import put on chat.users.events (ADR 0111).
// Knobs: BENCH_ROUNDS (4), BENCH_USERS (2000), BENCH_CONCURRENCY (4), BENCH_IDLE_SECONDS (3), BENCH_IDLE_TIMEOUT (120).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { alternatingOrder, buildRootsFromArgs, startBuildRound, startSharedInfrastructure } from './buildRounds.mjs';
import { cpuSnapshot, stackProcesses } from './processCpu.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  rounds: knob('BENCH_ROUNDS', 4),
  users: knob('BENCH_USERS', 2000),
  concurrency: knob('BENCH_CONCURRENCY', 4),
  idleSeconds: knob('BENCH_IDLE_SECONDS', 3),
  idleTimeoutS: knob('BENCH_IDLE_TIMEOUT', 120),
};
const BATCH = 50;
const roots = buildRootsFromArgs('import-cpu.mjs');
const SERVICES = ['gateway', 'users', 'messages', 'conversations', 'calls', 'management', 'notifications', 'webhooks', 'realtime'];
/** The store and the broker are shared by both builds, but only one build runs in a round: their CPU in a round is that build's. */
const SHOWN = [...SERVICES, 'ferretdb', 'kafka'];

const shared = await startSharedInfrastructure();
const { infra, probe } = shared;

async function runRound(root, round) {
  const built = await startBuildRound({
    infra,
    probe,
    root,
    name: 'import cpu',
    suffixPrefix: 'icpu',
    targetPrefix: 'ic',
    pairs: 1,
    groups: 0,
    groupSize: 2,
    warmUpRate: 5,
    idleTimeoutS: CONFIG.idleTimeoutS,
    registerStop: shared.registerStop,
  });
  const { services, appId, apiKey, ours } = built;
  try {
    const gatewayPort = new URL(services.gatewayUrl).port;
    const gatewayPid = Number(readFileSync(join(root, '.infra', 'run', `gateway-${gatewayPort}.pid`), 'utf8'));
    const sharedProcesses = stackProcesses({ infra, services }).processes.filter((p) => p.name === 'ferretdb' || p.name === 'kafka');
    const processes = [{ name: 'gateway', pid: gatewayPid }, ...services.instances.map((i) => ({ name: i.service, pid: i.pid() })), ...sharedProcesses];
    const idleFrom = cpuSnapshot(processes);
    const idleStarted = performance.now();
    await sleep(CONFIG.idleSeconds * 1000);
    const idle = cpuSnapshot(processes).since(idleFrom);
    const idleS = (performance.now() - idleStarted) / 1000;
    const base = Math.floor(Date.now() / 1000) - 100 * 86_400;
    const batches = [];
    for (let i = 0; i < CONFIG.users; i += BATCH) {
      const uids = Array.from({ length: Math.min(BATCH, CONFIG.users - i) }, (_, k) => `imp${round}-${i + k}`);
      batches.push(Object.fromEntries(uids.map((uid, k) => [uid, { uid, name: `User ${i + k}`, createdAt: base + i + k }])));
    }
    const recordsFrom = await probe.eventsIn(['chat.users.events']);
    const loadFrom = cpuSnapshot(processes);
    const loadStarted = performance.now();
    let next = 0;
    let refused = 0;
    const worker = async () => {
      for (let index = next++; index < batches.length; index = next++) {
        const response = await fetch(`${services.gatewayUrl}/v3/data_import/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', appid: appId, apikey: apiKey },
          body: JSON.stringify({ users: batches[index] }),
          signal: AbortSignal.timeout(60_000),
        });
        const answer = await response.json();
        refused += response.ok ? Object.values(answer.data).filter((r) => !r.success).length : Object.keys(batches[index]).length;
      }
    };
    await Promise.all(Array.from({ length: CONFIG.concurrency }, worker));
    const importS = (performance.now() - loadStarted) / 1000;
    const quiet = await probe.waitForQuiet(ours, CONFIG.idleTimeoutS * 1000);
    const load = cpuSnapshot(processes).since(loadFrom);
    const loadS = (performance.now() - loadStarted) / 1000;
    const records = (await probe.eventsIn(['chat.users.events'])) - recordsFrom;
    const users = CONFIG.users - refused;
    return { users, refused, quiet: quiet.quiet, importS, loadS, load, idleRate: new Map([...idle].map(([name, ms]) => [name, ms / idleS])), records };
  } finally {
    await shared.stopRound();
  }
}

const totals = roots.map(() => ({ users: 0, cpu: new Map(), idleCpu: new Map(), records: 0, importS: 0 }));
const order = alternatingOrder(CONFIG.rounds);
const fmt = (map) => SHOWN.map((name) => `${name} ${map.get(name).toFixed(3)}`).join(', ');
console.log(`import cpu: A ${roots[0]}, B ${roots[1]}; ${CONFIG.rounds} rounds (${order.map((i) => 'AB'[i]).join(' ')}) of ${CONFIG.users} users, ${CONFIG.concurrency} requests in flight`);
try {
  for (const [round, which] of order.entries()) {
    const started = new Date().toISOString().slice(11, 19);
    const r = await runRound(roots[which], round);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(
      `round ${round + 1} ${'AB'[which]} (${started}, load ${load}): ${r.users} users at ${(r.users / r.importS).toFixed(0)}/s, ${r.refused} refused` +
        `${r.quiet ? '' : ', NOT idle'}; Kafka records per user ${(r.records / r.users).toFixed(3)}`,
    );
    console.log(`  ms/user ${fmt(new Map(SHOWN.map((name) => [name, r.load.get(name) / r.users])))}`);
    console.log(`  net     ${fmt(new Map(SHOWN.map((name) => [name, (r.load.get(name) - r.idleRate.get(name) * r.loadS) / r.users])))}`);
    const total = totals[which];
    total.users += r.users;
    total.records += r.records;
    total.importS += r.importS;
    for (const name of SHOWN) {
      total.cpu.set(name, (total.cpu.get(name) ?? 0) + r.load.get(name));
      total.idleCpu.set(name, (total.idleCpu.get(name) ?? 0) + r.idleRate.get(name) * r.loadS);
    }
  }
  console.log('\nall rounds, CPU ms per imported user: A | B | B ÷ A (net of the idle rate in brackets)');
  for (const name of SHOWN) {
    const [a, b] = totals.map((t) => t.cpu.get(name) / t.users);
    const [na, nb] = totals.map((t) => (t.cpu.get(name) - t.idleCpu.get(name)) / t.users);
    console.log(`  ${name.padEnd(14)} ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}   (${na.toFixed(3)} | ${nb.toFixed(3)} | ${(nb / na).toFixed(2)})`);
  }
  const sum = (t, of) => SHOWN.reduce((s, name) => s + of(t, name), 0) / t.users;
  const [ta, tb] = totals.map((t) => sum(t, (x, name) => x.cpu.get(name)));
  const [nta, ntb] = totals.map((t) => sum(t, (x, name) => x.cpu.get(name) - x.idleCpu.get(name)));
  console.log(`  ${'all shown'.padEnd(14)} ${ta.toFixed(3)} | ${tb.toFixed(3)} | ${(tb / ta).toFixed(2)}   (${nta.toFixed(3)} | ${ntb.toFixed(3)} | ${(ntb / nta).toFixed(2)})`);
  const [ra, rb] = totals.map((t) => t.records / t.users);
  console.log(`  Kafka records per user on chat.users.events: ${ra.toFixed(3)} | ${rb.toFixed(3)}; users/s ${totals.map((t) => (t.users / t.importS).toFixed(0)).join(' | ')}`);
} finally {
  await shared.stop();
}
process.exit(0);
