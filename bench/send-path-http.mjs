// node bench/send-path-http.mjs <build root A> <build root B> — what one send costs the HTTP layers of
// the send path, in one process, alternating (ADR 0071): (1) the gateway of each build (`createGateway`,
// the key, app and role look-ups answered from memory, a static upstream in a child process) forwarding
// `POST /v3/messages`; (2) in build B, a service's express app (`createServiceApp` with routes shaped as
// the messages service's) against the same app behind `answeringHotRoutes`, the use case a stub that
// records one write. A client in a child process sends BENCH_REQUESTS (4,000) requests, 16 at a time,
// per pass; CPU µs per request of this process (`process.cpuUsage`), 4 passes each after a warm-up pass.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [mode, ...args] = process.argv.slice(2);
const SEND = JSON.stringify({ receiver: 'bob', receiverType: 'user', category: 'message', type: 'text', data: { text: 'hello there' } });
const ANSWER = JSON.stringify({ data: { id: '1234', conversationId: 'alice_user_bob', sender: 'alice', receiver: 'bob', data: { text: 'x'.repeat(600) } } });

if (mode === '--upstream') {
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(ANSWER) }).end(ANSWER));
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
} else if (mode === '--client') {
  const [url, count] = args;
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(SEND), appid: 'app1', apikey: '0123456789abcdef0123456789abcdef01234567', onbehalfof: 'alice' };
  const one = () =>
    new Promise((done, fail) => {
      const req = http.request({ host: target.hostname, port: target.port, method: 'POST', path: '/v3/messages', headers, agent }, (res) => {
        if (res.statusCode !== 200) fail(new Error(`status ${res.statusCode}`));
        res.resume();
        res.on('end', done);
      });
      req.on('error', fail);
      req.end(SEND);
    });
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => { while (next++ < Number(count)) await one(); }));
  process.exit(0);
} else {
  const roots = [mode, ...args].slice(0, 2).map((root) => resolve(root));
  if (roots.length !== 2) throw new Error('usage: node bench/send-path-http.mjs <build root A> <build root B>');
  const requests = Number(process.env.BENCH_REQUESTS ?? 4_000);
  const self = new URL(import.meta.url).pathname;
  const upstreamProcess = fork(self, ['--upstream']);
  const [{ port }] = await once(upstreamProcess, 'message');
  const upstream = `http://127.0.0.1:${port}`;
  /** CPU µs per request of this process while a client sends `requests` to `url`. */
  const pass = async (url) => {
    const from = process.cpuUsage();
    const [code] = await once(fork(self, ['--client', url, String(requests)]), 'exit');
    if (code !== 0) throw new Error(`the client failed against ${url}`);
    const used = process.cpuUsage(from);
    return (used.user + used.system) / requests;
  };
  const listen = async (listener) => {
    const server = http.createServer({ keepAliveTimeout: 65_000 }, listener);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
  };
  const compare = async (title, targets) => {
    for (const url of Object.values(targets)) await pass(url);
    const results = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
    const names = Object.keys(targets);
    for (let i = 0; i < 4; i++) for (const name of i % 2 ? [...names].reverse() : names) results[name].push(await pass(targets[name]));
    console.log(title);
    for (const [name, values] of Object.entries(results)) {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      console.log(`  ${name.padEnd(40)} ${values.map((v) => v.toFixed(0).padStart(4)).join(' ')}   mean ${mean.toFixed(0)} µs CPU per request`);
    }
  };

  const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent, bindings: () => ({}) };
  const memory = new Map();
  const redis = { get: async (key) => memory.get(key) ?? null, set: async (key, value) => void memory.set(key, value) };
  const gateways = {};
  const stops = [];
  for (const [index, root] of roots.entries()) {
    const { createGateway } = await import(`${root}/gateway/dist/app.js`);
    const { loadConfig } = await import(`${root}/gateway/dist/config.js`);
    const env = { GATEWAY_PORT: '0', GATEWAY_HOST: '127.0.0.1', MANAGEMENT_KEY: randomBytes(16).toString('hex'), MANAGEMENT_SECRET: randomBytes(24).toString('hex') };
    for (const service of ['USERS', 'CONVERSATIONS', 'MESSAGES', 'CALLS', 'MANAGEMENT', 'WEBHOOKS', 'NOTIFICATIONS']) env[`${service}_URL`] = upstream;
    const gateway = createGateway(loadConfig(env), {
      redis,
      logger: silent,
      fetchKey: async () => ({ keyId: 'k1', appId: 'app1', scope: 'fullAccess' }),
      fetchApp: async () => null,
      fetchRoleAccess: async () => ({ role: 'default', permissions: {}, restrictedFeatures: [] }),
    });
    gateways[`gateway ${'AB'[index]} (${root})`] = `http://127.0.0.1:${await gateway.start()}`;
    stops.push(() => gateway.stop());
  }
  await compare('gateway: one forwarded send', gateways);

  const httpPackage = await import(`${roots[1]}/packages/http/dist/index.js`);
  const requireHere = createRequire(`${roots[1]}/packages/http/package.json`);
  const { Router } = requireHere('express');
  const logger = requireHere('pino').pino({ level: 'silent' });
  const answer = async () => {
    await Promise.resolve();
    httpPackage.recordProducedPositions([{ streamId: 'conversation-alice_user_bob', version: 3 }]);
    return JSON.parse(ANSWER);
  };
  // The routes the messages service's routers hold before the send, so express walks as far as it does there.
  const personal = Router();
  personal.get('/v3/messages', (_req, _res, next) => next());
  const router = Router();
  for (const path of ['/v3/bots/:uid/messages', '/v3/messages/:id/thread']) router.post(path, (_req, res) => res.json({}));
  router.post('/v3/messages', async (req, res) => res.json(await answer(req)));
  const app = httpPackage.createServiceApp({ logger, routers: [personal, router], bodyLimit: '80kb' });
  const plain = await listen(app);
  const hot = await listen(httpPackage.answeringHotRoutes([{ path: '/v3/messages', bodyLimit: 80 * 1024, answer }], app, logger));
  await compare(`service HTTP layer (build B): one send, stub use case`, { 'express (createServiceApp)': plain.url, 'answeringHotRoutes in front': hot.url });
  plain.close();
  hot.close();
  for (const stop of stops) await stop();
  upstreamProcess.kill();
  process.exit(0);
}
