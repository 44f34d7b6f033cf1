// node bench/realtime.mjs — issue 24's realtime goals, each printed beside a raw baseline measured in
// the same run, on the stack `npm start` uses (bench/stack.mjs starts the realtime service with the
// others; REPLICAS=2 runs two of each). Every client goes through the gateway, as an app's would.
//  1. BENCH_RT_CONNECTIONS (10,000) WebSockets held at once: the realtime process's RSS and idle CPU %
//     over BENCH_RT_IDLE_SECONDS (/proc; the gateway's beside it, it splices every socket). Baseline: a
//     bare `ws` server in a child process holding the same number of sockets from this process.
//  2. send → `message` frame at the receiver, p50/p99 from the send's start, open loop at 100 msg/s and
//     at the stack's sustained rate (BENCH_RT_RATE, else measured: closed loop of 50 clients for
//     BENCH_RT_SUSTAINED_SECONDS), with every connection of 1. still open. Baseline: send → answer.
//  3. a message to a BENCH_RT_GROUP_SIZE (1,000)-member group, every member connected: the last
//     member's frame p99 over BENCH_RT_GROUP_MESSAGES messages. Baseline: the first member's frame.
//  4. BENCH_RT_CYCLES (100) forced disconnect/resume cycles (the client drops its socket and reconnects
//     with `since` = the last cursor it had) during a send load among BENCH_RT_PAIRS pairs: frames lost
//     (a send the API accepted that a party of it never got), duplicated, out of order and unexpected.
// The sockets need file descriptors (3 per connection across this process, the gateway and realtime):
// the limit is raised with prlimit for this process before the stack starts (the services inherit it),
// and clients connect from BENCH_RT_LOCAL_ADDRESSES loopback addresses (127.0.0.2…) so the ephemeral
// port range is never the bound. The stack and every socket and helper stop on exit, failure and Ctrl-C.
// BENCH_RT_GOALS (1,2,3,4) picks goals; the users are created once for all (withAuthToken).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { internalHeaders } from '../packages/contracts/dist/index.js';
import { terminate } from './childProcesses.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { pidFromFile, processCpuMs } from './processCpu.mjs';
import { percentile, runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic, describe, errorTally, inParallel, ok } from './traffic.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const CONFIG = {
  connections: knob('BENCH_RT_CONNECTIONS', 10_000),
  idleSeconds: knob('BENCH_RT_IDLE_SECONDS', 10),
  openSeconds: knob('BENCH_RT_OPEN_SECONDS', 10),
  sustainedSeconds: knob('BENCH_RT_SUSTAINED_SECONDS', 5),
  rate: process.env.BENCH_RT_RATE === undefined ? undefined : Number(process.env.BENCH_RT_RATE),
  groupSize: knob('BENCH_RT_GROUP_SIZE', 1_000),
  groupMessages: knob('BENCH_RT_GROUP_MESSAGES', 20),
  addChunk: knob('BENCH_RT_ADD_CHUNK', 100),
  cycles: knob('BENCH_RT_CYCLES', 100),
  pairs: knob('BENCH_RT_PAIRS', 20),
  resumeRate: knob('BENCH_RT_RESUME_RATE', 50),
  localAddresses: knob('BENCH_RT_LOCAL_ADDRESSES', 8),
  connectConcurrency: knob('BENCH_RT_CONNECT_CONCURRENCY', 100),
  frameTimeoutS: knob('BENCH_RT_FRAME_TIMEOUT', 15),
  goals: (process.env.BENCH_RT_GOALS ?? '1,2,3,4').split(',').map((g) => Number(g.trim())),
};
const GOALS = { rssMiB: 1024, idleCpuPct: 5, p99At100: 100, p99AtSustained: 250, groupLastP99: 500 };
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const NOFILE = Math.max(65_536, CONFIG.connections * 4 + 4_096);

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits }) : String(n));
const verdict = (value, goal) => (!Number.isFinite(value) ? 'not measured' : value <= goal ? `meets ≤ ${fmt(goal)}` : `MISSES ≤ ${fmt(goal)}`);
const sorted = (values) => [...values].sort((a, b) => a - b);
const p = (values, q) => percentile(sorted(values), q);
const rssMiB = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
};
const nofileOf = (pid) => /Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];

// Raised before anything is spawned: the gateway and the services inherit it.
try {
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${NOFILE}:${NOFILE}`]);
} catch (error) {
  console.log(`could not raise the file-descriptor limit to ${NOFILE} (${error.message.split('\n')[0]}); it stays ${nofileOf(process.pid)}`);
}

const stack = await startBenchStack({ name: 'realtime bench' });
const { onStop } = stack;
await runBenchOn(stack, run);

// ------------------------------------------------------------------------------------------- clients

/**
 * One WebSocket client: every `message` frame's id with its arrival time, the last cursor, and a
 * reconnect that resumes from it. `count`: the frames of each message id (duplicates show as 2).
 */
function createSocketClient({ url, headers }, localAddress) {
  const client = {
    socket: null,
    lastCursor: undefined,
    /** message id → arrival times (performance.now()), in arrival order */
    arrivals: new Map(),
    order: [],
    resyncs: 0,
    cycles: 0,
    /** Frames of a message id already had: its cursor, and whether this client had resumed before. */
    duplicates: [],
    firstCursor: new Map(),
    closes: new Map(),
    async open(since) {
      const socket = new WebSocket(since === undefined ? url : `${url}&since=${encodeURIComponent(since)}`, { localAddress, headers, perMessageDeflate: false });
      client.socket = socket;
      socket.on('message', (data) => {
        const at = performance.now();
        const frame = JSON.parse(data.toString('utf8'));
        if (frame.cursor !== undefined) client.lastCursor = frame.cursor;
        if (frame.type === 'resync_required') client.resyncs += 1;
        if (frame.type !== 'message') return;
        const id = String(frame.data.id);
        const times = client.arrivals.get(id);
        if (times) {
          times.push(at);
          client.duplicates.push({ id, sameCursor: frame.cursor === client.firstCursor.get(id), afterCycle: client.cycles > 0 });
        } else {
          client.arrivals.set(id, [at]);
          client.firstCursor.set(id, frame.cursor);
        }
        client.order.push(id);
      });
      socket.on('close', (code) => client.closes.set(code, (client.closes.get(code) ?? 0) + 1));
      socket.on('error', () => undefined);
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
        socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      });
    },
    /** Drops the socket the way a lost network would (no close handshake), then resumes. */
    async cycle() {
      const since = client.lastCursor;
      client.cycles += 1;
      client.socket.terminate();
      await client.open(since);
    },
    close() {
      client.socket?.terminate();
    },
  };
  return client;
}

/** Opens one client per target (`{ url, headers? }`), `connectConcurrency` handshakes in flight, spread over local addresses. */
async function openClients(targets) {
  const clients = targets.map((url, i) => createSocketClient(url, `127.0.0.${2 + (i % CONFIG.localAddresses)}`));
  onStop(() => clients.forEach((c) => c.close()));
  const started = performance.now();
  const failures = new Map();
  await inParallel(clients, CONFIG.connectConcurrency, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.open();
      } catch (error) {
        if (attempt === 3) {
          failures.set(error.message, (failures.get(error.message) ?? 0) + 1);
          return;
        }
        await sleep(200 * attempt);
      }
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const open = clients.filter((c) => c.socket?.readyState === WebSocket.OPEN).length;
  return { clients, open, seconds, failures: [...failures].map(([m, n]) => `${n}× ${m}`).join(', ') };
}

/** RSS and CPU % of `pids` over `seconds` of idleness. */
async function idleCost(pids, seconds) {
  const before = new Map(pids.map(([name, pid]) => [name, processCpuMs(pid)]));
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const elapsedMs = performance.now() - t0;
  return new Map(pids.map(([name, pid]) => [name, { rssMiB: rssMiB(pid), cpuPct: ((processCpuMs(pid) - before.get(name)) / elapsedMs) * 100 }]));
}

/** Waits until `done()` or the deadline; true when done. */
async function until(done, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

// ------------------------------------------------------------------------------------------------ run

async function run() {
  const { appId, chat } = stack.app;
  const client = createGatewayClient(stack.services.gatewayUrl, { timeoutMs: 30_000 });
  onStop(() => client.close());
  const traffic = createTraffic({ client, chat, setupTimeoutS: 1_800, setupConcurrency: 32 });
  const realtimes = stack.services.instances.filter((i) => i.service === 'realtime');
  const gatewayPid = pidFromFile(`gateway-${new URL(stack.services.gatewayUrl).port}`);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `issue 24 realtime: ${fmt(CONFIG.connections)} connections, ${realtimes.length} realtime replica(s) (pid ${realtimes.map((r) => r.pid()).join(', ')}), ` +
      `gateway pid ${gatewayPid}; fd limit ${nofileOf(process.pid)} (realtime ${nofileOf(realtimes[0].pid())}, gateway ${nofileOf(gatewayPid)}); ` +
      `${CONFIG.localAddresses} client addresses; ${process.env.REPLICAS ?? 1} replica(s); load average ${load()}`,
  );

  // The users, each with an auth token from its create.
  const t0 = performance.now();
  const uids = Array.from({ length: CONFIG.connections }, (_, i) => `rt${String(i).padStart(5, '0')}`);
  const tokens = new Map();
  await inParallel(uids, 32, async (uid) => {
    const body = await traffic.must('POST', '/v3/users', chat, { uid, name: uid, withAuthToken: true }, 120_000);
    tokens.set(uid, body.data.authToken);
  });
  console.log(`\n${fmt(uids.length)} users with auth tokens created in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const wsBase = stack.services.gatewayUrl.replace(/^http/, 'ws');
  // The gateway holds two descriptors per socket (the client's and the spliced one): past its limit
  // the rest connect straight to a realtime replica with the identity headers the gateway would set.
  const viaGateway = Math.min(uids.length, Math.floor((Number(nofileOf(gatewayPid)) - 2_048) / 2));
  const targetOf = (uid, i) =>
    i < viaGateway
      ? { url: `${wsBase}/v3/realtime?appId=${appId}&authToken=${tokens.get(uid)}` }
      : { url: `${realtimes[i % realtimes.length].url.replace(/^http/, 'ws')}/v3/realtime?direct=1`, headers: { [internalHeaders.appId]: appId, [internalHeaders.onBehalfOf]: uid, [internalHeaders.authTokenId]: `bench-${uid}` } };

  // 1. Connections held: the bare `ws` server first, then realtime, the same sockets from here.
  let held = null;
  if (CONFIG.goals.includes(1)) {
    const baseline = await bareServer();
    const bare = await openClients(uids.map(() => ({ url: `ws://127.0.0.1:${baseline.port}/?x=1` })));
    await sleep(2_000);
    const bareCost = (await idleCost([['bare ws', baseline.child.pid]], CONFIG.idleSeconds)).get('bare ws');
    bare.clients.forEach((c) => c.close());
    await terminate(baseline.child);
    console.log(`\n1. baseline, a bare ws server: ${fmt(bare.open)} sockets open in ${fmt(bare.seconds, 1)} s${bare.failures ? ` (failed: ${bare.failures})` : ''}; RSS ${fmt(bareCost.rssMiB)} MiB, idle CPU ${fmt(bareCost.cpuPct, 2)} %`);
  }
  held = await openClients(uids.map(targetOf));
  console.log(`${CONFIG.goals.includes(1) ? '' : '\n'}   realtime: ${fmt(held.open)} of ${fmt(uids.length)} sockets open in ${fmt(held.seconds, 1)} s (${fmt(viaGateway)} through the gateway, ${fmt(uids.length - viaGateway)} straight to realtime: the gateway's fd limit) (${fmt(held.open / held.seconds)}/s)${held.failures ? `; failed: ${held.failures}` : ''}`);
  const clientOf = new Map(uids.map((uid, i) => [uid, held.clients[i]]));
  if (CONFIG.goals.includes(1)) {
    await sleep(5_000);
    const cost = await idleCost([...realtimes.map((r) => [`realtime-${r.replica}`, r.pid()]), ['gateway', gatewayPid]], CONFIG.idleSeconds);
    for (const [name, { rssMiB: rss, cpuPct }] of cost) {
      const goal = name.startsWith('realtime') ? `: RSS ${verdict(rss, GOALS.rssMiB)} MiB, idle CPU ${verdict(cpuPct, GOALS.idleCpuPct)} %` : ' (not a goal: it splices every socket)';
      console.log(`   ${name}: RSS ${fmt(rss)} MiB, idle CPU ${fmt(cpuPct, 2)} % over ${CONFIG.idleSeconds} s${goal}`);
    }
    const still = held.clients.filter((c) => c.socket?.readyState === WebSocket.OPEN).length;
    console.log(`   sockets still open after the idle window: ${fmt(still)}; closes seen: ${JSON.stringify(Object.fromEntries(held.clients.flatMap((c) => [...c.closes]).reduce((m, [k, v]) => m.set(k, (m.get(k) ?? 0) + v), new Map())))}`);
  }

  // 2. Send → frame at the receiver, one-on-one pairs among the connected users.
  if (CONFIG.goals.includes(2)) {
    const pairs = Array.from({ length: Math.min(50, Math.floor(uids.length / 2)) }, (_, i) => ({ kind: 'user', a: uids[2 * i], b: uids[2 * i + 1] }));
    for (const pair of pairs) await traffic.must('POST', '/v3/messages', { ...chat, onbehalfof: pair.a }, { receiver: pair.b, receiverType: 'user', type: 'text', data: { text: 'warm-up' } });
    let rate = CONFIG.rate;
    if (rate === undefined) {
      const sustained = await traffic.sustainedSends(pairs, { clients: 50, seconds: CONFIG.sustainedSeconds });
      rate = Math.max(1, Math.floor(sustained.perSecond));
      console.log(`\n2. sustained send rate (50 closed-loop clients, ${CONFIG.sustainedSeconds} s): ${fmt(sustained.perSecond)}/s, ${sustained.errors}`);
      await sleep(2_000);
    } else console.log(`\n2. sustained send rate: BENCH_RT_RATE ${rate}/s`);
    for (const [label, r, goal] of [['100 msg/s', 100, GOALS.p99At100], [`the sustained ${fmt(rate)} msg/s`, rate, GOALS.p99AtSustained]]) {
      const result = await openLoopToFrames(traffic, pairs, r, clientOf);
      console.log(
        `   at ${label}: frame at the receiver p50 ${fmt(result.frameP50)} ms, p99 ${fmt(result.frameP99)} ms (${verdict(result.frameP99, goal)}) over ${fmt(result.frames)} frames; ` +
          `baseline send → answer p50 ${fmt(result.answerP50)} ms, p99 ${fmt(result.answerP99)} ms; achieved ${fmt(result.achieved)}/s, ${result.late} late starts, ${result.errors} errors, ${result.missing} frames missing after ${CONFIG.frameTimeoutS} s`,
      );
      await sleep(2_000);
    }
  }

  // 3. A group with every member connected.
  if (CONFIG.goals.includes(3)) {
    const members = uids.slice(0, Math.min(CONFIG.groupSize, uids.length));
    const guid = 'rt-group';
    await traffic.must('POST', '/v3/groups', { ...chat, onbehalfof: members[0] }, { guid, name: guid, type: 'public' });
    const addStarted = performance.now();
    // In chunks: one request adding ~800 or more makes the messages service publish a batch of action
    // messages past Kafka's 1 MB limit, which stalls its publication for every app (ADR 0078).
    let added = 0;
    for (let i = 1; i < members.length; i += CONFIG.addChunk) added += await traffic.addMembers(guid, members.slice(i, i + CONFIG.addChunk), 120_000);
    const addedAt = performance.now();
    if (added !== members.length - 1) throw new Error(`${guid}: only ${added} of ${members.length - 1} members could be added`);
    // Each member added is an action message, sent to the members connected by then, in the group's
    // partition ahead of anything sent after: a first message is timed until every member has it.
    const framesAt = () => members.reduce((n, uid) => n + clientOf.get(uid).order.length, 0);
    const from = framesAt();
    const settleStarted = performance.now();
    const probe = await client.request('POST', '/v3/messages', { ...chat, onbehalfof: members[0] }, { receiver: guid, receiverType: 'group', type: 'text', data: { text: 'after the adds' } });
    if (!ok(probe)) throw new Error(`group send: ${describe(probe)}`);
    const settled = await until(() => members.every((uid) => clientOf.get(uid).arrivals.has(String(probe.body.data.id))), 600_000);
    console.log(
      `\n3. adding ${fmt(added)} members took ${fmt((addedAt - addStarted) / 1000, 1)} s; a message sent then reached ${settled ? 'every member' : 'NOT every member'} after ${fmt((performance.now() - settleStarted) / 1000, 1)} s, ` +
        `behind ${fmt(framesAt() - from)} message frames at the members (one action message per member added, to every member connected by then)`,
    );
    const last = [];
    const first = [];
    let incomplete = 0;
    const missedBy = new Map();
    for (let i = 0; i < CONFIG.groupMessages; i++) {
      const sender = members[i % members.length];
      const at = performance.now();
      const answer = await client.request('POST', '/v3/messages', { ...chat, onbehalfof: sender }, { receiver: guid, receiverType: 'group', type: 'text', data: { text: `group ${i}` } });
      if (!ok(answer)) throw new Error(`group send: ${describe(answer)}`);
      const id = String(answer.body.data.id);
      const arrived = () => members.map((uid) => clientOf.get(uid).arrivals.get(id)?.[0]).filter((t) => t !== undefined);
      if (!(await until(() => arrived().length === members.length, CONFIG.frameTimeoutS * 1000))) {
        incomplete += 1;
        for (const uid of members) if (!clientOf.get(uid).arrivals.has(id)) missedBy.set(uid, (missedBy.get(uid) ?? 0) + 1);
      }
      const times = arrived().map((t) => t - at);
      if (times.length === members.length) last.push(Math.max(...times));
      first.push(Math.min(...times));
      await sleep(500);
    }
    console.log(
      `   ${fmt(members.length)}-member group, every member connected, ${CONFIG.groupMessages} messages: last member's frame p50 ${fmt(p(last, 50))} ms, p99 ${fmt(p(last, 99))} ms (${verdict(p(last, 99), GOALS.groupLastP99)}); ` +
        `baseline the first member's frame p50 ${fmt(p(first, 50))} ms, p99 ${fmt(p(first, 99))} ms; ${incomplete} messages not at every member within ${CONFIG.frameTimeoutS} s` +
        (missedBy.size ? ` (${missedBy.size} members missed some: ${[...missedBy].slice(0, 5).map(([uid, n]) => `${uid} ${n}×${uid === members[0] ? ' (the owner)' : ''}`).join(', ')})` : ''),
    );
    if (incomplete > 0) console.log(`   ${await realtimeState()}`);
  }

  // 4. Disconnect/resume cycles during a send load.
  if (CONFIG.goals.includes(4)) {
    const offset = Math.min(CONFIG.groupSize, viaGateway - 2 * CONFIG.pairs);
    const pairs = Array.from({ length: CONFIG.pairs }, (_, i) => ({ kind: 'user', a: uids[offset + 2 * i], b: uids[offset + 2 * i + 1] }));
    for (const pair of pairs) await traffic.must('POST', '/v3/messages', { ...chat, onbehalfof: pair.a }, { receiver: pair.b, receiverType: 'user', type: 'text', data: { text: 'warm-up' } });
    await sleep(2_000);
    const parties = pairs.flatMap((pair) => [pair.a, pair.b]);
    for (const uid of parties) {
      const c = clientOf.get(uid);
      c.arrivals.clear();
      c.order.length = 0;
      c.duplicates.length = 0;
    }
    const seconds = Math.max(10, Math.ceil(CONFIG.cycles / 10) + 4);
    const accepted = [];
    const sending = sendLoad(traffic, pairs, CONFIG.resumeRate, seconds, accepted);
    let cycles = 0;
    let cycleErrors = 0;
    const cycling = (async () => {
      await sleep(1_500);
      const gap = ((seconds - 3) * 1000) / CONFIG.cycles;
      for (let i = 0; i < CONFIG.cycles; i++) {
        const c = clientOf.get(parties[(i * 7) % parties.length]);
        try {
          await c.cycle();
          cycles += 1;
        } catch {
          cycleErrors += 1;
        }
        await sleep(gap);
      }
    })();
    const { errors, unsure } = await sending;
    await cycling;
    const expected = new Map(parties.map((uid) => [uid, new Set()]));
    for (const { id, sender, receiver } of accepted) {
      expected.get(sender).add(id);
      expected.get(receiver).add(id);
    }
    await until(() => parties.every((uid) => [...expected.get(uid)].every((id) => clientOf.get(uid).arrivals.has(id))), CONFIG.frameTimeoutS * 1000);
    let lost = 0;
    let duplicated = 0;
    let unexpected = 0;
    let outOfOrder = 0;
    let resyncs = 0;
    for (const uid of parties) {
      const c = clientOf.get(uid);
      resyncs += c.resyncs;
      for (const id of expected.get(uid)) if (!c.arrivals.has(id)) lost += 1;
      for (const [id, times] of c.arrivals) {
        duplicated += times.length - 1;
        if (!expected.get(uid).has(id) && !unsure.has(id)) unexpected += 1;
      }
      // Per conversation (a user here has one), message ids rise in send order.
      for (let i = 1; i < c.order.length; i++) if (BigInt(c.order[i]) < BigInt(c.order[i - 1])) outOfOrder += 1;
    }
    const deliveries = [...expected.values()].reduce((n, s) => n + s.size, 0);
    console.log(
      `\n4. ${cycles} disconnect/resume cycles (${cycleErrors} reconnects failed) over ${seconds} s of ${CONFIG.resumeRate} msg/s among ${CONFIG.pairs} pairs, ${realtimes.length} replica(s): ` +
        `${fmt(accepted.length)} sends accepted (${errors}), ${fmt(deliveries)} frames due; lost ${lost}, duplicated ${duplicated}, out of order ${outOfOrder}, unexpected ${unexpected}, resync_required ${resyncs} (goal: 0 lost, 0 duplicated)`,
    );
    if (lost > 0) console.log(`   ${await realtimeState()}`);
    const dups = parties.flatMap((uid) => clientOf.get(uid).duplicates);
    if (dups.length > 0) {
      const neverCycled = parties.filter((uid) => clientOf.get(uid).cycles === 0 && clientOf.get(uid).duplicates.length > 0).length;
      console.log(`   duplicates: ${dups.filter((d) => d.afterCycle).length} on clients that had resumed, ${dups.filter((d) => !d.afterCycle).length} before any resume; ${neverCycled} clients that never resumed got some; ${dups.filter((d) => d.sameCursor).length} with the same cursor as the first copy`);
    }
  }
  console.log(`\nload average at the end ${load()}`);
}

/** Each realtime replica's health answer and CPU time, printed when frames went missing. */
async function realtimeState() {
  const states = [];
  for (const r of stack.services.instances.filter((i) => i.service === 'realtime')) {
    const health = await fetch(`${r.url}/health`, { signal: AbortSignal.timeout(5_000) }).then((res) => res.text(), (error) => String(error));
    states.push(`realtime-${r.replica}: CPU ${fmt(processCpuMs(r.pid()) / 1000, 1)} s so far, RSS ${fmt(rssMiB(r.pid()))} MiB, /health ${health}`);
  }
  return states.join('; ');
}

/** A bare `ws` server in a child process (the raw baseline of goal 1): resolves with its port. */
async function bareServer() {
  const code = `const { WebSocketServer } = require('ws');
const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
wss.on('listening', () => process.send(wss.address().port));
wss.on('connection', (ws) => ws.on('message', (d) => ws.send(d)));
process.on('disconnect', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', code], { cwd: BENCH_DIR, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  onStop(() => terminate(child));
  const [port] = await once(child, 'message');
  return { child, port };
}

/** Open loop at `rate` msg/s for BENCH_RT_OPEN_SECONDS; times from each send's scheduled start. */
async function openLoopToFrames(traffic, pairs, rate, clientOf) {
  const total = Math.round(rate * CONFIG.openSeconds);
  const answers = [];
  const watched = [];
  let errors = 0;
  let late = 0;
  const inFlight = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const scheduledAt = started + (i * 1000) / rate;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await sleep(wait);
    if (performance.now() - scheduledAt > 5) late += 1;
    const pair = pairs[i % pairs.length];
    const [sender, receiver] = Math.floor(i / pairs.length) % 2 === 0 ? [pair.a, pair.b] : [pair.b, pair.a];
    inFlight.push(
      traffic.send(pair, sender, `open ${rate} ${i}`).then((answer) => {
        if (!ok(answer)) return void (errors += 1);
        answers.push(performance.now() - scheduledAt);
        watched.push({ id: String(answer.body.data.id), receiver, scheduledAt });
      }),
    );
  }
  const scheduleSeconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  await until(() => watched.every((w) => clientOf.get(w.receiver).arrivals.has(w.id)), CONFIG.frameTimeoutS * 1000);
  const frames = watched.map((w) => clientOf.get(w.receiver).arrivals.get(w.id)?.[0]).map((t, i) => (t === undefined ? undefined : t - watched[i].scheduledAt)).filter((t) => t !== undefined);
  return {
    achieved: answers.length / scheduleSeconds,
    late,
    errors,
    frames: frames.length,
    missing: watched.length - frames.length,
    frameP50: p(frames, 50),
    frameP99: p(frames, 99),
    answerP50: p(answers, 50),
    answerP99: p(answers, 99),
  };
}

/**
 * Sends among `pairs` at `rate` for `seconds`, alternating direction; `accepted` gets every answered
 * send. A send without an answer (timeout, reset) may still have been stored: its frames are `unsure`.
 */
async function sendLoad(traffic, pairs, rate, seconds, accepted) {
  const errors = errorTally();
  const inFlight = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const pair = pairs[i % pairs.length];
    const [sender, receiver] = Math.floor(i / pairs.length) % 2 === 0 ? [pair.a, pair.b] : [pair.b, pair.a];
    inFlight.push(
      traffic.send(pair, sender, `resume ${i}`).then((answer) => {
        if (ok(answer)) accepted.push({ id: String(answer.body.data.id), sender, receiver });
        else errors.add(answer);
      }),
    );
  }
  await Promise.all(inFlight);
  // Unanswered sends are not told apart here: any frame outside `accepted` is counted as unexpected.
  return { errors: String(errors), unsure: new Set() };
}
