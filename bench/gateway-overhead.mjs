// npm run bench — the same unpin request (a) straight to the conversations service, (b) through
// the gateway, (c) through a minimal node:http pipe proxy; then the gateway's added latency at a
// fixed moderate rate, and how long a sent message takes to become readable in its conversation.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { registerShutdown, startInfrastructure, startServices } from '@chat/devstack';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PROPAGATION_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);

const infra = await startInfrastructure();
const services = await startServices({
  ...infra,
  ports: 'ephemeral',
  databaseSuffix: `bench${randomBytes(3).toString('hex')}`,
  extraEnv: { LOG_LEVEL: 'warn' },
});
let proxy;
const stopEverything = async () => {
  proxy?.kill('SIGTERM');
  await services.stop();
  await infra.stop();
};
// Also on Ctrl-C or a failed run: nothing this benchmark started may outlive it.
registerShutdown(stopEverything);

async function api(method, path, { headers = {}, body } = {}) {
  const response = await fetch(`${services.gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// A tenant with two users and one conversation.
const created = await api('POST', '/apps', {
  headers: { key: services.managementKey, secret: services.managementSecret },
  body: { name: 'bench', region: 'us' },
});
const appId = created.data.id;
const keys = Object.values(created.data.apiKeys);
const apiKey = keys.find((k) => k.scope === 'fullAccess').apiKey;
const chat = { appid: appId, apikey: apiKey };
for (const uid of ['alice', 'bob']) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });

async function readableAt(messageId) {
  for (;;) {
    const response = await fetch(`${services.gatewayUrl}/v3/users/bob/conversation`, {
      headers: { ...chat, onbehalfof: 'alice' },
    });
    if (response.ok) {
      const { data } = await response.json();
      if (data.lastMessage?.id === messageId) return performance.now();
    } else await response.arrayBuffer();
    await sleep(1);
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// Propagation: POST /messages returning → the conversation showing that message.
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
const internalHeaders = {
  'x-chat-app-id': appId,
  'x-chat-key-id': 'bench',
  'x-chat-scope': 'fullAccess',
  'x-chat-on-behalf-of': 'alice',
};
const gatewayHeaders = { appid: appId, apikey: apiKey, onbehalfof: 'alice' };

// A separate process, like the gateway, so neither shares a core with autocannon's event loop.
proxy = fork(new URL('./pipe-proxy.mjs', import.meta.url), ['0', services.serviceUrls.conversations], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const { port: proxyPort } = await new Promise((resolve) => proxy.once('message', resolve));

function run(url, headers, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${url}${unpinPath}`, method: 'DELETE', headers, connections: CONNECTIONS, duration: DURATION_S, ...extra },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0) {
          return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        }
        resolve(result);
      },
    );
  });
}

const line = (label, r) =>
  `${label.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms`;

// Warm every path once so JIT and connection pools do not favour the later runs.
for (const [url, headers] of [
  [services.serviceUrls.conversations, internalHeaders],
  [services.gatewayUrl, gatewayHeaders],
  [`http://127.0.0.1:${proxyPort}`, internalHeaders],
]) {
  await run(url, headers, { duration: 2 });
}

const direct = await run(services.serviceUrls.conversations, internalHeaders);
const gateway = await run(services.gatewayUrl, gatewayHeaders);
const pipe = await run(`http://127.0.0.1:${proxyPort}`, internalHeaders);

const rate = Math.max(50, Math.round(direct.requests.average / 3));
const fixedDirect = await run(services.serviceUrls.conversations, internalHeaders, { overallRate: rate, connections: 8 });
const fixedGateway = await run(services.gatewayUrl, gatewayHeaders, { overallRate: rate, connections: 8 });

console.log('');
console.log(`unpin (DELETE ${unpinPath}), ${CONNECTIONS} connections, ${DURATION_S} s each`);
console.log(line('(a) straight to the service', direct));
console.log(line('(b) through the gateway', gateway));
console.log(line('(c) through a node:http pipe proxy', pipe));
console.log(
  `at a fixed ${rate} req/s: service p50 ${fixedDirect.latency.p50} ms p99 ${fixedDirect.latency.p99} ms; ` +
    `gateway p50 ${fixedGateway.latency.p50} ms p99 ${fixedGateway.latency.p99} ms`,
);
console.log(
  `gateway adds at ${rate} req/s: p50 ${(fixedGateway.latency.p50 - fixedDirect.latency.p50).toFixed(2)} ms, ` +
    `p99 ${(fixedGateway.latency.p99 - fixedDirect.latency.p99).toFixed(2)} ms`,
);
console.log(
  `POST /messages → conversation readable, ${delays.length} messages: p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms`,
);
console.log(`(b)/(c) = ${(gateway.requests.average / pipe.requests.average).toFixed(2)}`);
await stopEverything();
process.exit(0);
