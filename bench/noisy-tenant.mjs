// node bench/noisy-tenant.mjs — does a tenant hammering the gateway at 10× its rate limit move
// another tenant's latency? One run: a gateway in front of the real services where the noisy app
// has a small limit (RATE_LIMIT_APP_OVERRIDES); the quiet app's p99 at a fixed open-loop rate is
// measured alone, then while the noisy app sends 10× its limit, then alone again. The noisy app
// first spends its minute's quota (that much load it is entitled to: it is not what the limit is
// for), all inside one fixed window, so what the quiet app meets is the refused excess only. The
// last line is the ratio of the p99 with noise to the mean of the two quiet runs (goal ≤ 1.10).
//   NOISY_LIMIT_PER_MINUTE (default 600: 10/s), QUIET_RATE (req/s, default 100), BENCH_SECONDS (default 10)
import http from 'node:http';
import { startExtraGateway } from '@chat/devstack';
import { latencyAtRate } from './openLoop.mjs';
import { startBenchStack } from './stack.mjs';

const NOISY_LIMIT = Number(process.env.NOISY_LIMIT_PER_MINUTE ?? 600);
const NOISY_RATE = (10 * NOISY_LIMIT) / 60; // requests per second: 10× the limit
const QUIET_RATE = Number(process.env.QUIET_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

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

  /** The noisy tenant at a fixed rate until stopped; counts its answers by status. */
  const noise = () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const target = new URL(`${gateway.url}/v3/users`);
    const statuses = {};
    let running = true;
    const started = performance.now();
    const done = (async () => {
      for (let i = 0; running; i++) {
        const wait = started + (i * 1000) / NOISY_RATE - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers: noisy.chat, agent }, (response) => {
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
          response.resume();
        });
        request.on('error', () => (statuses.error = (statuses.error ?? 0) + 1));
        request.end();
      }
    })();
    return { stop: async () => ((running = false), await done, agent.destroy(), statuses) };
  };

  const before = await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS);
  // Spend the noisy app's quota early in a fresh window, so the measurement never crosses into the next.
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 60_000 - (SECONDS + 20) * 1000) await new Promise((resolve) => setTimeout(resolve, 60_200 - intoWindow));
  const spend = await latencyAtRate(`${gateway.url}/v3/users/nobody`, { method: 'GET', headers: noisy.chat }, NOISY_RATE, (NOISY_LIMIT * 1.05) / NOISY_RATE);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const loud = noise();
  const during = await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS);
  const noisyStatuses = await loud.stop();
  const after = await latencyAtRate(quietUrl, quietRequest, QUIET_RATE, SECONDS);

  const ms = (value) => `${value.toFixed(2)} ms`;
  console.log(`noisy tenant: limit ${NOISY_LIMIT}/min; quota spent first (${spend.count + spend.failures} requests); then ${NOISY_RATE.toFixed(0)}/s (10×) during the measurement: answers ${JSON.stringify(noisyStatuses)}`);
  for (const [label, r] of [['quiet alone (before)', before], ['quiet with noise', during], ['quiet alone (after)', after]]) {
    console.log(`${label.padEnd(22)} ${QUIET_RATE}/s for ${SECONDS} s: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ok ${r.count}, failed ${r.failures}`);
  }
  const baseline = (before.p99 + after.p99) / 2;
  console.log(`quiet tenant p99 with noise / without: ${(during.p99 / baseline).toFixed(3)} (goal ≤ 1.10)`);
} finally {
  await stop();
}
