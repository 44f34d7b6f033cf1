// npm run bench — the same unpin request (a) straight to the conversations service, (b) through the
// gateway, (c) through a minimal node:http pipe proxy; the gateway's added latency at a fixed moderate
// rate; the same three against a static upstream, where the proxies' own cost is visible; and how long
// a sent message takes to become readable in its conversation. The last line is (b)/(c).
import { fork, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { terminate } from './childProcesses.mjs';
import { latencyAtRate } from './openLoop.mjs';
import { UNLIMITED_RATES, percentile, startBenchStack } from './stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROPAGATION_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

// A tenant with two users and one conversation.
// Limits far above any rate here: the gateway still counts every request (that cost is measured),
// but the loads below, tens of thousands a second, must not be refused as over the app's limit.
const { infra, services, api, app, onStop, stop } = await startBenchStack({ name: 'bench', extraEnv: UNLIMITED_RATES });
const { appId, apiKey, chat } = app;

/** The helper processes and the second gateway go with the stack's stop: SIGTERM, then SIGKILL after 5 s. */
function stopWithStack(child) {
  onStop(() => terminate(child));
}

/** A helper process that reports its port over IPC; its stdout is not ours to hold open. */
async function helper(script, args, env = {}) {
  const child = fork(new URL(script, import.meta.url), args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  stopWithStack(child);
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  return `http://127.0.0.1:${port}`;
}

for (const uid of ['alice', 'bob']) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });

// Propagation: POST /messages returning → the conversation showing that message.
async function readableAt(messageId) {
  for (;;) {
    const response = await fetch(`${services.gatewayUrl}/v3/users/bob/conversation`, { headers: { ...chat, onbehalfof: 'alice' } });
    const body = await response.json();
    if (response.ok && body.data.lastMessage?.id === messageId) return performance.now();
    await sleep(1);
  }
}
const delays = [];
for (let i = 0; i < PROPAGATION_MESSAGES; i++) {
  const sent = await api('POST', '/v3/messages', {
    headers: { ...chat, onbehalfof: 'alice' },
    body: { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: `m${i}` } },
  });
  const returned = performance.now();
  delays.push((await readableAt(sent.data.id)) - returned);
}
delays.sort((a, b) => a - b);

const unpinPath = '/v3/users/bob/conversation/pin';
const internalHeaders = { 'x-chat-app-id': appId, 'x-chat-key-id': 'bench', 'x-chat-scope': 'fullAccess', 'x-chat-on-behalf-of': 'alice' };
const gatewayHeaders = { appid: appId, apikey: apiKey, onbehalfof: 'alice' };

function load(url, headers, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${url}${unpinPath}`, method: 'DELETE', headers, connections: CONNECTIONS, duration: DURATION_S, ...extra },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        resolve(result);
      },
    );
  });
}

/**
 * (a), (b), (c) against one upstream, each warmed first, then the gateway's added latency at a fixed
 * moderate rate: a third of the maximum of `rateBase` ('a' for the real service, as specified; 'c'
 * against the static upstream, whose own maximum is far above what any proxy in front of it reaches).
 */
async function compare(serviceUrl, gatewayUrl, pipeUrl, rateBase) {
  const targets = [
    [serviceUrl, internalHeaders],
    [gatewayUrl, gatewayHeaders],
    [pipeUrl, internalHeaders],
  ];
  for (const [url, headers] of targets) await load(url, headers, { duration: 2 });
  const results = [];
  for (const [url, headers] of targets) results.push(await load(url, headers));
  const rate = Math.max(20, Math.round(results[rateBase === 'a' ? 0 : 2].requests.average / 3));
  const seconds = Math.min(DURATION_S, 10);
  const fixedDirect = await latencyAtRate(`${serviceUrl}${unpinPath}`, { method: 'DELETE', headers: internalHeaders }, rate, seconds);
  const fixedGateway = await latencyAtRate(`${gatewayUrl}${unpinPath}`, { method: 'DELETE', headers: gatewayHeaders }, rate, seconds);
  // The pipe proxy at the same rate separates what any extra hop costs from what the gateway adds.
  const fixedPipe = await latencyAtRate(`${pipeUrl}${unpinPath}`, { method: 'DELETE', headers: internalHeaders }, rate, seconds);
  return { direct: results[0], gateway: results[1], pipe: results[2], rate, rateBase: `(${rateBase})`, fixedDirect, fixedGateway, fixedPipe };
}

const line = (label, r) =>
  `  ${label.padEnd(30)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms`;
const ms = (value) => `${value.toFixed(2)} ms`;
function report(title, c) {
  console.log(title);
  console.log(line('(a) straight to the upstream', c.direct));
  console.log(line('(b) through the gateway', c.gateway));
  console.log(line('(c) through a pipe proxy', c.pipe));
  console.log(
    `  at a fixed ${c.rate} req/s (open loop, a third of ${c.rateBase}'s maximum): upstream p50 ${ms(c.fixedDirect.p50)} p99 ${ms(c.fixedDirect.p99)}; ` +
      `gateway p50 ${ms(c.fixedGateway.p50)} p99 ${ms(c.fixedGateway.p99)}; ` +
      `pipe proxy p50 ${ms(c.fixedPipe.p50)} p99 ${ms(c.fixedPipe.p99)}`,
  );
  console.log(
    `  added by the gateway: p50 ${ms(c.fixedGateway.p50 - c.fixedDirect.p50)}, p99 ${ms(c.fixedGateway.p99 - c.fixedDirect.p99)}` +
      ` (a bare pipe proxy adds p50 ${ms(c.fixedPipe.p50 - c.fixedDirect.p50)}, p99 ${ms(c.fixedPipe.p99 - c.fixedDirect.p99)})`,
  );
  console.log(`  (b)/(c) = ${(c.gateway.requests.average / c.pipe.requests.average).toFixed(2)}`);
}

// 1. The real conversations service (FerretDB-bound on this machine).
const real = await compare(
  services.serviceUrls.conversations,
  services.gatewayUrl,
  await helper('./pipe-proxy.mjs', ['0', services.serviceUrls.conversations]),
  'a',
);

// 2. The same request and response from a static upstream: what the gateway itself costs.
const bodyFile = join(tmpdir(), `unpin-body-${process.pid}.json`);
const sample = await fetch(`${services.serviceUrls.conversations}${unpinPath}`, { method: 'DELETE', headers: internalHeaders });
writeFileSync(bodyFile, Buffer.from(await sample.arrayBuffer()));
const staticUrl = await helper('./static-upstream.mjs', [bodyFile]);
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
const staticGateway = await (async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoRoot, 'gateway/dist/main.js')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...UNLIMITED_RATES,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(port),
      GATEWAY_HOST: '127.0.0.1',
      REDIS_URL: infra.redisUrl,
      USERS_URL: services.serviceUrls.users,
      CONVERSATIONS_URL: staticUrl,
      MESSAGES_URL: services.serviceUrls.messages,
      CALLS_URL: services.serviceUrls.calls,
      MANAGEMENT_URL: services.serviceUrls.management,
      WEBHOOKS_URL: services.serviceUrls.webhooks,
      NOTIFICATIONS_URL: services.serviceUrls.notifications,
      MANAGEMENT_KEY: services.managementKey,
      MANAGEMENT_SECRET: services.managementSecret,
    },
  });
  stopWithStack(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (up) return url;
    await sleep(50);
  }
  throw new Error('the second gateway did not start');
})();
const staticPipe = await helper('./pipe-proxy.mjs', ['0', staticUrl]);
const isolated = await compare(staticUrl, staticGateway, staticPipe, 'c');

// Interleaved pairs (BENCH_PAIRS, each BENCH_PAIR_SECONDS per side): on a shared machine the load
// moves between two 10 s runs; a gateway run and a pipe run back to back, many times, and the median
// of their ratios is what the gateway itself costs.
const PAIRS = Number(process.env.BENCH_PAIRS ?? 0);
const pairRatios = [];
for (let i = 0; i < PAIRS; i++) {
  const seconds = Number(process.env.BENCH_PAIR_SECONDS ?? 5);
  const gatewayRun = await load(staticGateway, gatewayHeaders, { duration: seconds });
  const pipeRun = await load(staticPipe, internalHeaders, { duration: seconds });
  pairRatios.push(gatewayRun.requests.average / pipeRun.requests.average);
}
pairRatios.sort((x, y) => x - y);

console.log('');
console.log(`DELETE ${unpinPath} (idempotent unpin), ${CONNECTIONS} connections, ${DURATION_S} s per run`);
report('against a static upstream (the proxies\' own cost):', isolated);
if (pairRatios.length > 0) {
  console.log(
    `  ${pairRatios.length} interleaved pairs against the static upstream: (b)/(c) median ${percentile(pairRatios, 50).toFixed(2)}` +
      ` (min ${pairRatios[0].toFixed(2)}, max ${pairRatios.at(-1).toFixed(2)})`,
  );
}
console.log(
  `POST /messages → conversation readable, ${delays.length} messages: p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms`,
);
report('against the conversations service:', real);
console.log(`(b)/(c) = ${(real.gateway.requests.average / real.pipe.requests.average).toFixed(2)}`);
await stop();
process.exit(0);
