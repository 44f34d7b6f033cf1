// node bench/noisy-tenant.mjs — does a tenant hammering the gateway at 10× its rate limit move
// another tenant's latency? One run: a gateway in front of the real services where the noisy app
// has a small limit (RATE_LIMIT_APP_OVERRIDES); the quiet app's p99 at a fixed open-loop rate is
// measured alone and while the noisy app sends 10× its limit. The noisy app
// first spends its minute's quota (that much load it is entitled to: it is not what the limit is
// for), all inside one fixed window, so what the quiet app meets is the refused excess only. The
// last line is the ratio of the p99 with noise to the p99 alone (goal ≤ 1.10).
// The noisy tenant runs in its own process (bench/noisyLoad.mjs), as a separate client would.
// The quiet runs alone and with noise alternate (ROUNDS pairs and a last run alone, all inside the
// window), and each side's p99 is over all its requests: on a shared machine one before/after pair
// mostly measured the other load's drift.
//   NOISY_LIMIT_PER_MINUTE (default 600: 10/s), QUIET_RATE (req/s, default 100),
//   BENCH_SECONDS (per run, default 4), ROUNDS (default 4)
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startExtraGateway } from '@chat/devstack';
import { latencyAtRate } from './openLoop.mjs';
import { percentile } from './percentile.mjs';
import { processCpuMs } from './processCpu.mjs';
import { startBenchStack } from './stack.mjs';

const NOISY_LIMIT = Number(process.env.NOISY_LIMIT_PER_MINUTE ?? 600);
const NOISY_RATE = (10 * NOISY_LIMIT) / 60; // requests per second: 10× the limit
const QUIET_RATE = Number(process.env.QUIET_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 4);

const { infra, services, api, createApp, onStop, stop } = await startBenchStack();
try {
  const quiet = await createApp('quiet tenant');
  const noisy = await createApp('noisy tenant');
  await api('POST', '/v3/users', { headers: quiet.chat, body: { uid: 'reader', name: 'Reader' } });
  const gateway = await startExtraGateway({
    serviceUrls: services.serviceUrls,
    redisUrl: infra.redisUrl,
    managementKey: services.managementKey,
    managementSecret: services.managementSecret,
    env: { RATE_LIMIT_APP_OVERRIDES: JSON.stringify({ [noisy.appId]: { standard: NOISY_LIMIT, core: NOISY_LIMIT } }) },
  });
  onStop(() => gateway.stop());
  const quietRequest = { method: 'GET', headers: quiet.chat };
  const quietUrl = `${gateway.url}/v3/users/reader`;
  // Warm-up: key caches, keep-alive sockets, the JIT.
  await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, 5);

  /**
   * The noisy tenant at a fixed rate until stopped, in its own process (bench/noisyLoad.mjs): in
   * this one its timers and sockets would delay the quiet tenant's requests before they leave.
   */
  const noise = () => {
    const child = fork(new URL('./noisyLoad.mjs', import.meta.url), [`${gateway.url}/v3/users`, String(NOISY_RATE), JSON.stringify(noisy.chat)]);
    const statuses = new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`noisy load exited with ${code}`))));
    });
    return { stop: async () => (child.send('stop'), await statuses) };
  };

  // Spend the noisy app's quota early in a fresh window, so the measurement never crosses into the next.
  const spendSeconds = (NOISY_LIMIT * 1.05) / NOISY_RATE;
  const needed = (spendSeconds + 2 + (2 * ROUNDS + 1) * (SECONDS + 0.5) + 5) * 1000;
  if (needed > 60_000) throw new Error(`ROUNDS × BENCH_SECONDS do not fit in one rate-limit window (${(needed / 1000).toFixed(0)} s)`);
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 60_000 - needed) await new Promise((resolve) => setTimeout(resolve, 60_200 - intoWindow));
  /**
   * The extra gateway's CPU time so far (ms, user + system, from /proc): what a refused request
   * costs the gateway, which the machine's other load does not blur the way it blurs latency.
   */
  const gatewayPid = Number(readFileSync(new URL(`../.infra/run/gateway-extra-${new URL(gateway.url).port}.pid`, import.meta.url), 'utf8'));
  const gatewayCpuMs = () => processCpuMs(gatewayPid);
  const spend = await latencyAtRate(`${gateway.url}/v3/users/nobody`, { method: 'GET', headers: noisy.chat }, NOISY_RATE, spendSeconds);
  await new Promise((resolve) => setTimeout(resolve, 2_000));

  // Alone and with noise in turns (alone first and last), so a drift of the machine's other load
  // falls on both sides alike; each side's p99 is over all its requests.
  const alone = [];
  const loud = [];
  const noisyStatuses = {};
  const cpu = { alone: 0, loud: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    let mark = gatewayCpuMs();
    alone.push(await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS));
    cpu.alone += gatewayCpuMs() - mark;
    const noisyLoad = noise();
    mark = gatewayCpuMs();
    loud.push(await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS));
    cpu.loud += gatewayCpuMs() - mark;
    for (const [status, count] of Object.entries(await noisyLoad.stop())) noisyStatuses[status] = (noisyStatuses[status] ?? 0) + count;
  }
  alone.push(await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS));

  const pooled = (runs) => {
    const latencies = runs.flatMap((r) => r.latencies).sort((x, y) => x - y);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, failures: runs.reduce((sum, r) => sum + r.failures, 0) };
  };
  const ms = (value) => `${value.toFixed(2)} ms`;
  console.log(`noisy tenant: limit ${NOISY_LIMIT}/min; quota spent first (${spend.count + spend.failures} requests); then ${NOISY_RATE.toFixed(0)}/s (10×) from its own process during the noisy runs: answers ${JSON.stringify(noisyStatuses)}`);
  console.log(`per run p99, alone: ${alone.map((r) => ms(r.p99)).join(', ')}; with noise: ${loud.map((r) => ms(r.p99)).join(', ')}`);
  const quietRuns = pooled(alone);
  const noisyRuns = pooled(loud);
  for (const [label, r, runs] of [['quiet alone', quietRuns, alone.length], ['quiet with noise', noisyRuns, loud.length]]) {
    console.log(`${label.padEnd(18)} ${QUIET_RATE}/s, ${runs} × ${SECONDS} s: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ok ${r.count}, failed ${r.failures}`);
  }
  const refused = noisyStatuses['429'] ?? 0;
  const perQuiet = (cpu.alone * 1000) / (ROUNDS * QUIET_RATE * SECONDS);
  const perRefused = refused > 0 ? ((cpu.loud - cpu.alone) * 1000) / refused : NaN;
  console.log(
    `gateway CPU: ${perQuiet.toFixed(0)} µs per quiet request (forwarded); ~${perRefused.toFixed(0)} µs per refused request (the noisy runs' extra CPU / ${refused} refusals; ±10 ms ticks)`,
  );
  console.log(`quiet tenant p99 with noise / without: ${(noisyRuns.p99 / quietRuns.p99).toFixed(3)} (goal ≤ 1.10)`);
} finally {
  await stop();
}
