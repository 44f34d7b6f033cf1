// node bench/webhooks-cost.mjs — what one message costs the webhooks process (issue 23, ADR 0044), in
// two phases of the same run: an app with no webhook, then an app with one webhook on message_sent
// (a local receiver answering 200 at once). Per message sent it prints:
//   - CPU ms of the webhooks process and of management (which reads the webhooks topic), user +
//     system from /proc, from just before the sends until the process is idle again, less what the
//     process spends idle (measured over 5 s before the sends) over that time;
//   - FerretDB write statements and write-lock ms in the webhooks database, by collection, and in
//     management's (the runner's own tally: this script sets FERRETDB_STATS_INTERVAL=1s, which takes
//     effect when it starts FerretDB itself, not on one it finds already running).
// Knobs: RATE (default 50 msg/s, below what a loaded machine accepts), MESSAGES (1,000 per phase). Compare builds by running the same
// command on each, one after the other; the ratios the issue asks for are between those two runs.
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createGatewayClient } from './httpClient.mjs';
import { startBenchStack } from './stack.mjs';

process.env.FERRETDB_STATS_INTERVAL ??= '1s';
const RATE = Number(process.env.RATE ?? 50);
const MESSAGES = Number(process.env.MESSAGES ?? 1_000);
const PAIRS = 10;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver on loopback that answers 200 at once and counts the requests. */
async function startReceiver() {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    requests: () => requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
const { infra, services, api, createApp, databaseSuffix, onStop, stop } = stack;
const management = { key: services.managementKey, secret: services.managementSecret };
const client = createGatewayClient(services.gatewayUrl);

/** CPU ms (user + system) a process has used so far. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ = 100
}
const pidOf = (service) => services.instances.find((i) => i.service === service).pid();

/** A metric of the webhooks process (its first replica), summed over its label sets. */
async function webhooksMetric(name) {
  const url = services.instances.find((i) => i.service === 'webhooks').url;
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  return sum;
}

/** Waits until the process spent under 40 ms of CPU in a second (its consumers are done), at most 30 s. */
async function idle(pid) {
  for (let i = 0; i < 30; i++) {
    const before = cpuMs(pid);
    await sleep(1_000);
    if (cpuMs(pid) - before < 40) return;
  }
}

const ferretLog = fileURLToPath(new URL(`../.infra/logs/ferretdb-${new URL(infra.mongoUrl).port}.log`, import.meta.url));
const logSize = () => (existsSync(ferretLog) ? statSync(ferretLog).size : 0);

/** The runner's write tallies since `offset`, by namespace: statements and ms of write lock. */
function writesSince(offset) {
  const text = existsSync(ferretLog) ? readFileSync(ferretLog).subarray(offset).toString('utf8') : '';
  const byNamespace = new Map();
  for (const line of text.split('\n')) {
    const m = /^\s+write (\S+)\s+(\S+)\s+(\d+) cmds\s+(\d+) stmts\s+([\d.]+) ms busy/.exec(line);
    if (!m) continue;
    const tally = byNamespace.get(m[2]) ?? { commands: 0, statements: 0, busyMs: 0 };
    tally.commands += Number(m[3]);
    tally.statements += Number(m[4]);
    tally.busyMs += Number(m[5]);
    byNamespace.set(m[2], tally);
  }
  return byNamespace;
}

async function usersFor(app, count) {
  const uids = Array.from({ length: count }, (_, i) => `u${i}`);
  for (const uid of uids) {
    const answer = await client.request('POST', '/v3/users', app.chat, { uid, name: uid });
    if (answer.status !== 200) throw new Error(`create user ${uid}: ${answer.status} ${JSON.stringify(answer.body ?? answer.error)}`);
  }
  return uids;
}

/** Open-loop sends at RATE/s, round robin over the pairs; resolves with how many were accepted. */
async function sendAtRate(app, pairs) {
  const started = performance.now();
  const pending = [];
  let accepted = 0;
  for (let i = 0; i < MESSAGES; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 1) await sleep(wait);
    const [from, to] = pairs[i % pairs.length];
    pending.push(
      client
        .request('POST', '/v3/messages', { ...app.chat, onbehalfof: from }, { receiver: to, receiverType: 'user', type: 'text', data: { text: 'hook' } })
        .then((answer) => void (answer.status === 200 && (accepted += 1))),
    );
  }
  await Promise.all(pending);
  return accepted;
}

async function phase(label, withWebhook) {
  const app = await createApp(`cost ${label}`);
  const uids = await usersFor(app, PAIRS * 2);
  const pairs = Array.from({ length: PAIRS }, (_, i) => [uids[2 * i], uids[2 * i + 1]]);
  const receiver = await startReceiver();
  onStop(receiver.close);
  if (withWebhook) {
    await api('POST', `/apps/${app.appId}/webhooks`, { headers: management, body: { id: 'hook', name: 'hook', webhookURL: receiver.url } });
    await api('POST', `/apps/${app.appId}/webhooks/hook/triggers`, { headers: management, body: { triggerIds: ['message_sent'] } });
    await sleep(1_000);
  }
  const webhooksPid = pidOf('webhooks');
  const managementPid = pidOf('management');
  await idle(webhooksPid);
  await idle(managementPid);
  const idleStart = { webhooks: cpuMs(webhooksPid), management: cpuMs(managementPid), at: performance.now() };
  await sleep(5_000);
  const cpu0 = { webhooks: cpuMs(webhooksPid), management: cpuMs(managementPid), at: performance.now() };
  const idleRate = (service) => (cpu0[service] - idleStart[service]) / (cpu0.at - idleStart.at);
  const offset = logSize();
  const metrics0 = { rounds: await webhooksMetric('configuration_fence_rounds'), skipped: await webhooksMetric('consumer_skipped_records') };
  const accepted = await sendAtRate(app, pairs);
  if (withWebhook) for (let i = 0; i < 600 && receiver.requests() < accepted; i++) await sleep(100);
  await idle(webhooksPid);
  await idle(managementPid);
  const elapsed = performance.now() - cpu0.at;
  const busy = (service, pid) => cpuMs(pid) - cpu0[service] - idleRate(service) * elapsed;
  const cpu = { webhooks: busy('webhooks', webhooksPid), management: busy('management', managementPid) };
  const rounds = (await webhooksMetric('configuration_fence_rounds')) - metrics0.rounds;
  const skipped = (await webhooksMetric('consumer_skipped_records')) - metrics0.skipped;
  await sleep(2_500); // the runner's next tally
  const writes = writesSince(offset);
  const per = (value) => (value / Math.max(1, accepted)).toFixed(2);
  console.log(`\n${label}: ${accepted}/${MESSAGES} sends accepted at ${RATE} msg/s${withWebhook ? `, ${receiver.requests()} deliveries` : ''}`);
  console.log(
    `  CPU per message: webhooks ${per(cpu.webhooks)} ms, management ${per(cpu.management)} ms ` +
      `(idle: ${(idleRate('webhooks') * 1000).toFixed(0)} and ${(idleRate('management') * 1000).toFixed(0)} ms/s, subtracted over ${(elapsed / 1000).toFixed(0)} s)`,
  );
  console.log(`  webhooks consumer: ${skipped} records skipped undecoded, ${rounds} configuration fence rounds (${per(rounds)} per message)`);
  for (const database of ['webhooks', 'management']) {
    const prefix = `chat_${database}_${databaseSuffix}.`;
    const rows = [...writes].filter(([ns]) => ns.startsWith(prefix)).sort((a, b) => b[1].busyMs - a[1].busyMs);
    const total = rows.reduce((t, [, w]) => ({ statements: t.statements + w.statements, busyMs: t.busyMs + w.busyMs }), { statements: 0, busyMs: 0 });
    console.log(`  ${database} store writes per message: ${per(total.statements)} statements, ${per(total.busyMs)} ms write lock`);
    for (const [ns, w] of rows) console.log(`    ${ns.slice(prefix.length).padEnd(28)} ${per(w.statements)} statements (${w.commands} commands), ${per(w.busyMs)} ms`);
  }
  await receiver.close();
}

try {
  console.log(`machine load (1 min) at start: ${loadavg()[0].toFixed(1)}; FerretDB tally ${existsSync(ferretLog) ? ferretLog : 'not found'}`);
  await phase('no webhook', false);
  await phase('one webhook on message_sent', true);
} finally {
  await stop();
}
