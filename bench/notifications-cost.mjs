// node bench/notifications-cost.mjs — what the notifications service costs per message (issue 23):
//   CPU ms per message of the notifications process and of FerretDB (from /proc), and the store
//   commands, write statements and write-lock ms per message on the notifications database (the
//   FerretDB runner's own tally, FERRETDB_STATS_INTERVAL=1s, read from its log), in three phases:
//   1. unconfigured: an app with no provider (and no push tokens) gets MESSAGES messages, half to users,
//      half to a group: what such a tenant costs the notifications consumer.
//   2. one-on-one: an app with a custom push provider gets MESSAGES one-on-one messages over RECIPIENTS
//      receivers (one provider call each).
//   3. group: the same app gets MESSAGES / 5 messages to a group of RECIPIENTS members (RECIPIENTS
//      provider calls each).
//   Every user of the configured app has an FCM push token (no FCM provider: each is logged as a skip,
//   as in bench/cost.mjs's features-on mix). Then, apart from the tallied phases, one-on-one messages
//   paced at RATE/s for LATENCY_SECONDS: send started → provider call p50/p99.
//   A phase ends when the provider has every call it expects and the notifications process is idle.
//   Knobs: MESSAGES (default 500), RECIPIENTS (20), CONCURRENCY (8 sends in flight). The FerretDB we
//   start gets FERRETDB_STATS_INTERVAL=1s unless it is set; a reused or given store has no tally here.
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { createGatewayClient } from './httpClient.mjs';
import { startBenchStack } from './stack.mjs';
import { processCpuMs } from './processCpu.mjs';
import { percentile } from './percentile.mjs';

const MESSAGES = Number(process.env.MESSAGES ?? 500);
const RECIPIENTS = Number(process.env.RECIPIENTS ?? 20);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const RATE = Number(process.env.RATE ?? 100);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
process.env.FERRETDB_STATS_INTERVAL ??= '1s';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const root = fileURLToPath(new URL('..', import.meta.url));

/** The custom push provider: a loopback endpoint counting calls per app (the path names the app). */
async function pushEndpoint() {
  const calls = new Map();
  /** When the first call for each message (the payload's tag) arrived. */
  const arrivals = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      calls.set(req.url, (calls.get(req.url) ?? 0) + 1);
      const tag = JSON.parse(Buffer.concat(chunks).toString() || '{}').data?.notificationDetails?.tag;
      if (tag && !arrivals.has(tag)) arrivals.set(tag, at);
      res.writeHead(200).end('{}');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    urlFor: (label) => `http://127.0.0.1:${server.address().port}/${label}`,
    calls: (label) => calls.get(`/${label}`) ?? 0,
    arrivals,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The runner's tally lines written to its log since `offset`, summed per command and collection. */
function tallySince(logFile, offset, database) {
  const text = readFileSync(logFile, 'utf8').slice(offset);
  const rows = new Map();
  const line = /^\s+(read|write)\s+(\S+)\s+(\S+)\s+(\d+) cmds\s+(\d+) stmts\s+([\d.]+) ms busy/;
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (!m || !m[3].startsWith(`${database}.`)) continue;
    const key = `${m[1]} ${m[2]} ${m[3].slice(database.length + 1)}`;
    const row = rows.get(key) ?? { cmds: 0, stmts: 0, busyMs: 0 };
    row.cmds += Number(m[4]);
    row.stmts += Number(m[5]);
    row.busyMs += Number(m[6]);
    rows.set(key, row);
  }
  return rows;
}

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
const { infra, services, createApp, onStop, stop, databaseSuffix } = stack;
const gateway = createGatewayClient(services.gatewayUrl);
const notificationsPid = services.instances.find((i) => i.service === 'notifications').pid();
const mongo = new MongoClient(infra.mongoUrl);
onStop(() => mongo.close());
const storePid = Number((await mongo.db('admin').command({ serverStatus: 1 }).catch(() => ({}))).pid);
const storeLog = join(root, '.infra', 'logs', `ferretdb-${new URL(infra.mongoUrl).port}.log`);
const tallied = infra.started.includes('ferretdb');
const database = `chat_notifications_${databaseSuffix}`;

/** A gateway call that must succeed, retried while the stack is still busy with an earlier phase. */
async function must(method, path, headers, body) {
  for (let attempt = 1; ; attempt++) {
    const answer = await gateway.request(method, path, headers, body);
    if (answer.status === 200) return answer.body;
    if (attempt === 40) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body ?? answer.error)}`);
    await pause(500);
  }
}

/** Waits until the notifications process has used (almost) no CPU for three half-second windows. */
async function untilIdle() {
  let quiet = 0;
  let last = processCpuMs(notificationsPid);
  while (quiet < 3) {
    await pause(500);
    const now = processCpuMs(notificationsPid);
    quiet = now - last <= 10 ? quiet + 1 : 0;
    last = now;
  }
}

/** An app (with a custom push provider when `label` names one), a sender, RECIPIENTS users and a group of them. */
async function benchApp(name, provider) {
  const app = await createApp(name);
  if (provider) await must('POST', '/v3/notifications/push/v1/providers/custom', app.chat, { isEnabled: true, webhookURL: provider, useBasicAuth: false });
  const uids = ['sender', ...Array.from({ length: RECIPIENTS }, (_, i) => `r${i}`)];
  for (const uid of uids) await must('POST', '/v3/users', app.chat, { uid, name: uid });
  for (const uid of uids) await must('GET', `/v3/notifications/v1/preferences?uid=${uid}`, app.chat);
  await must('POST', '/v3/groups', app.chat, { guid: 'crowd', name: 'crowd', type: 'public', owner: 'sender' });
  await must('POST', '/v3/groups/crowd/members', app.chat, { participants: uids.slice(1) });
  if (provider) {
    for (const uid of uids) {
      const { data } = await must('POST', `/v3/users/${uid}/auth_tokens`, app.chat, {});
      await must('POST', '/v3/notifications/push/v1/tokens', app.chat, { platform: 'fcm_android', fcmToken: `bench-${uid}`, authToken: data.authToken });
    }
  }
  return { app, recipients: uids.slice(1) };
}

/** Sends `count` messages, CONCURRENCY at a time; `to(i)` names the receiver. Returns how many were accepted. */
async function send(app, count, to) {
  let next = 0;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const [receiver, receiverType] = to(i);
        const answer = await gateway.request('POST', '/v3/messages', { ...app.chat, onbehalfof: 'sender' }, { receiver, receiverType, type: 'text', data: { text: `m${i}` } });
        if (answer.status === 200) accepted += 1;
      }
    }),
  );
  return accepted;
}

/** Runs one phase and prints its figures. */
async function phase(label, run) {
  await untilIdle();
  // What the processes use while nothing happens (polling consumers, timers), per second: subtracted
  // below, since a phase lasts as long as this shared machine lets the sends go.
  const idleFrom = [processCpuMs(notificationsPid), processCpuMs(storePid), performance.now()];
  await pause(5_000);
  const idleSeconds = (performance.now() - idleFrom[2]) / 1000;
  const idleRate = [(processCpuMs(notificationsPid) - idleFrom[0]) / idleSeconds, (processCpuMs(storePid) - idleFrom[1]) / idleSeconds];
  const offset = tallied ? statSync(storeLog).size : 0;
  const cpu0 = processCpuMs(notificationsPid);
  const store0 = processCpuMs(storePid);
  const started = performance.now();
  const messages = await run();
  await untilIdle();
  // The tally is printed each second: wait for the last one to cover the phase.
  await pause(1_500);
  const seconds = (performance.now() - started) / 1000;
  const cpu = processCpuMs(notificationsPid) - cpu0;
  const store = processCpuMs(storePid) - store0;
  const perMessage = (total, rate) => `${((total - rate * seconds) / messages).toFixed(2)} ms CPU/message above idle (${(total / messages).toFixed(2)} in all)`;
  console.log(
    `\n${label}: ${messages} messages in ${seconds.toFixed(1)} s — notifications ${perMessage(cpu, idleRate[0])}; ` +
      `FerretDB, all services' commands: ${perMessage(store, idleRate[1])}; idle: notifications ${idleRate[0].toFixed(0)} ms/s, FerretDB ${idleRate[1].toFixed(0)} ms/s`,
  );
  if (!tallied) return;
  const rows = [...tallySince(storeLog, offset, database).entries()].sort((a, b) => b[1].busyMs - a[1].busyMs);
  let writeStmts = 0;
  let writeMs = 0;
  let cmds = 0;
  for (const [key, row] of rows) {
    const isWrite = key.startsWith('write');
    // A write command without a document count (findAndModify…) is one statement.
    if (isWrite) {
      writeStmts += Math.max(row.stmts, row.cmds);
      writeMs += row.busyMs;
    }
    cmds += row.cmds;
    console.log(`  ${key.padEnd(58)} ${(row.cmds / messages).toFixed(2).padStart(7)} cmds ${(row.stmts / messages).toFixed(2).padStart(7)} stmts ${(row.busyMs / messages).toFixed(3).padStart(8)} ms /message`);
  }
  console.log(`  notifications database: ${(cmds / messages).toFixed(2)} commands, ${(writeStmts / messages).toFixed(2)} write statements, ${(writeMs / messages).toFixed(3)} ms of write lock per message`);
}

try {
  console.log(`machine load (1 min) at start: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores; ${MESSAGES} messages, ${RECIPIENTS} recipients`);
  const endpoint = await pushEndpoint();
  onStop(endpoint.close);
  const quiet = await benchApp('unconfigured', undefined);
  const loud = await benchApp('configured', endpoint.urlFor('configured'));
  // A first group message shows when the service knows every member (it learns them from events).
  await send(loud.app, 1, () => ['crowd', 'group']);
  for (let i = 0; i < 240 && endpoint.calls('configured') < RECIPIENTS; i++) await pause(500);

  await phase('unconfigured app (half one-on-one, half group)', () =>
    send(quiet.app, MESSAGES, (i) => (i % 2 === 0 ? [quiet.recipients[i % RECIPIENTS], 'user'] : ['crowd', 'group'])),
  );

  const untilCalls = async (expected) => {
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && endpoint.calls('configured') < expected) await pause(200);
    if (endpoint.calls('configured') < expected) console.log(`  (only ${endpoint.calls('configured')} of ${expected} provider calls arrived)`);
  };
  await phase('custom push, one-on-one', async () => {
    const before = endpoint.calls('configured');
    const sent = await send(loud.app, MESSAGES, (i) => [loud.recipients[i % RECIPIENTS], 'user']);
    await untilCalls(before + sent);
    return sent;
  });
  await phase(`custom push, group of ${RECIPIENTS}`, async () => {
    const before = endpoint.calls('configured');
    const sent = await send(loud.app, Math.ceil(MESSAGES / 5), () => ['crowd', 'group']);
    await untilCalls(before + sent * RECIPIENTS);
    return sent;
  });

  // Provider-call latency below capacity: one-on-one sends paced at RATE/s, none waiting for another.
  await untilIdle();
  const started = new Map();
  const sends = [];
  const total = RATE * LATENCY_SECONDS;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    if (due > performance.now()) await pause(due - performance.now());
    const at = performance.now();
    sends.push(
      gateway
        .request('POST', '/v3/messages', { ...loud.app.chat, onbehalfof: 'sender' }, { receiver: loud.recipients[i % RECIPIENTS], receiverType: 'user', type: 'text', data: { text: `p${i}` } })
        .then((answer) => answer.status === 200 && started.set(String(answer.body.data.id), at)),
    );
  }
  await Promise.all(sends);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && [...started.keys()].some((id) => !endpoint.arrivals.has(id))) await pause(100);
  const delays = [...started].flatMap(([id, at]) => (endpoint.arrivals.has(id) ? [endpoint.arrivals.get(id) - at] : [])).sort((a, b) => a - b);
  console.log(
    `\nprovider-call latency at ${RATE} msg/s for ${LATENCY_SECONDS} s (one-on-one, send started → provider call): ` +
      `p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms; ${started.size} answered, ${started.size - delays.length} never called within 30 s`,
  );
} finally {
  await stop();
}
