// node bench/send-allocations.mjs — what the services on a send's path allocate per message, by function (ADR 0140:
// their young-generation scavenges are pauses on the path, and how often they come is bytes allocated ÷ the young
// generation, whatever the machine's load). One stack as bench/cost.mjs starts it (features off, 50 one-on-one pairs
// and 2 groups of 20) with every service's inspector on a free port; on BENCH_SERVICES (default
// messages,conversations) V8's sampling heap profiler runs over an open loop at BENCH_RATE (100) msg/s for
// BENCH_SECONDS (10), counting objects the GC collected too (so: allocations, not what is retained). Prints per
// service the KB allocated per sent message and the BENCH_TOP (15) functions that allocated most (self bytes),
// each with its script and line.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createGatewayClient } from './httpClient.mjs';
import { runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOP = Number(process.env.BENCH_TOP ?? 15);
const SERVICES = (process.env.BENCH_SERVICES ?? 'messages,conversations').split(',');

process.env.SERVICE_NODE_ARGS = `${process.env.SERVICE_NODE_ARGS ?? ''} --inspect=127.0.0.1:0`.trim();
const stack = await startBenchStack({ name: 'send allocations' });

/** A Chrome DevTools Protocol session on a service's inspector (the URL its log announced). */
async function inspect(service) {
  const log = await readFile(join(ROOT, '.infra', 'logs', `${service}-test.log`), 'utf8');
  const url = [...log.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1)?.[1];
  if (!url) throw new Error(`${service}: no inspector URL in its log`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 1;
  const waiting = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new Error(`${service}: ${message.error.message}`));
    else entry.resolve(message.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

/** Self bytes per function (name, script, line) over a sampling heap profile's tree. */
function bySite(profile) {
  const sites = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/(node_modules|services|packages|gateway)\//, '$1/')}:${lineNumber + 1}`;
    sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return { total, sites: [...sites.entries()].sort((a, b) => b[1] - a[1]) };
}

await runBenchOn(stack, async () => {
  const client = createGatewayClient(stack.services.gatewayUrl);
  const traffic = createTraffic({ client, chat: stack.app.chat, setupTimeoutS: 300 });
  const targets = await traffic.createTargets({ prefix: 'al', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
  await sleep(2_000);
  const sessions = await Promise.all(SERVICES.map(async (service) => [service, await inspect(service)]));
  for (const [, session] of sessions) {
    await session.send('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  let answered = 0;
  const loop = await traffic.openLoop(targets, RATE, { seconds: SECONDS, visibleSamplesPerSecond: 1, pollBudgetPerSecond: 20, visibleTimeoutS: 5, onAnswered: () => void (answered += 1) });
  await sleep(1_000);
  console.log(`open loop ${RATE} msg/s for ${SECONDS} s: ${answered} answered, ${loop.errors}; send p50 ${loop.sendP50?.toFixed(1)} p99 ${loop.sendP99?.toFixed(1)} ms`);
  for (const [service, session] of sessions) {
    const { profile } = await session.send('HeapProfiler.stopSampling');
    session.close();
    const { total, sites } = bySite(profile);
    console.log(`\n${service}: ${(total / 1024 / answered).toFixed(1)} KB allocated per sent message (${(total / 1024 / 1024).toFixed(1)} MB in all)`);
    for (const [site, bytes] of sites.slice(0, TOP)) console.log(`  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${(bytes / 1024 / answered).toFixed(2).padStart(7)} KB/msg  ${site}`);
  }
});
