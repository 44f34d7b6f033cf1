// node bench/send-allocations.mjs — what the services on a send's path allocate per message, by function (ADR 0140:
// their young-generation scavenges are pauses on the path, and how often they come is bytes allocated ÷ the young
// generation, whatever the machine's load). One stack as bench/cost.mjs starts it (features off, 50 one-on-one pairs
// and 2 groups of 20) with every service's inspector on a free port; on BENCH_SERVICES (default
// messages,conversations) V8's sampling heap profiler runs over an open loop at BENCH_RATE (100) msg/s for
// BENCH_SECONDS (10), counting objects the GC collected too (so: allocations, not what is retained). Prints per
// service the KB allocated per sent message and the BENCH_TOP (15) functions that allocated most (self bytes),
// each with its script and line.
// BENCH_COUNT=promoted keeps only the samples that survived the young generation (collected by a major GC or still
// alive at the end, not by a scavenge): what a service promotes to old space per message, which is what makes its
// mark-compacts come (ADR 0155 lines the send path's stalls up with them).
import { setTimeout as sleep } from 'node:timers/promises';
import { createGatewayClient } from './httpClient.mjs';
import { inspectService } from './inspectorSession.mjs';
import { runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOP = Number(process.env.BENCH_TOP ?? 15);
const SERVICES = (process.env.BENCH_SERVICES ?? 'messages,conversations').split(',');
const PROMOTED_ONLY = process.env.BENCH_COUNT === 'promoted';
const COUNTED = PROMOTED_ONLY ? 'promoted' : 'allocated';

process.env.SERVICE_NODE_ARGS = `${process.env.SERVICE_NODE_ARGS ?? ''} --inspect=127.0.0.1:0`.trim();
const stack = await startBenchStack({ name: 'send allocations' });

/**
 * Self bytes per function (name, script, line) over a sampling heap profile's tree; a built-in without a script
 * (a `Map`'s `set`, which allocates its table) is named with the function that called it.
 */
function bySite(profile) {
  const sites = new Map();
  let total = 0;
  const name = ({ functionName, url, lineNumber }) => `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/(node_modules|services|packages|gateway)\//, '$1/')}:${lineNumber + 1}`;
  const walk = (node, parent) => {
    const builtin = node.callFrame.url === '' && parent;
    const key = builtin ? `${name(node.callFrame)} ← ${name(parent.callFrame)}` : name(node.callFrame);
    sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child, node);
  };
  walk(profile.head);
  return { total, sites: [...sites.entries()].sort((a, b) => b[1] - a[1]) };
}

await runBenchOn(stack, async () => {
  const client = createGatewayClient(stack.services.gatewayUrl);
  const traffic = createTraffic({ client, chat: stack.app.chat, setupTimeoutS: 300 });
  const targets = await traffic.createTargets({ prefix: 'al', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
  await sleep(2_000);
  const sessions = await Promise.all(SERVICES.map(async (service) => [service, await inspectService(service)]));
  for (const [, session] of sessions) {
    await session.send('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !PROMOTED_ONLY });
  }
  let answered = 0;
  const loop = await traffic.openLoop(targets, RATE, { seconds: SECONDS, visibleSamplesPerSecond: 1, pollBudgetPerSecond: 20, visibleTimeoutS: 5, onAnswered: () => void (answered += 1) });
  await sleep(1_000);
  console.log(`open loop ${RATE} msg/s for ${SECONDS} s: ${answered} answered, ${loop.errors}; send p50 ${loop.sendP50?.toFixed(1)} p99 ${loop.sendP99?.toFixed(1)} ms`);
  for (const [service, session] of sessions) {
    const { profile } = await session.send('HeapProfiler.stopSampling');
    session.close();
    const { total, sites } = bySite(profile);
    console.log(`\n${service}: ${(total / 1024 / answered).toFixed(1)} KB ${COUNTED} per sent message (${(total / 1024 / 1024).toFixed(1)} MB in all)`);
    for (const [site, bytes] of sites.slice(0, TOP)) console.log(`  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${(bytes / 1024 / answered).toFixed(2).padStart(7)} KB/msg  ${site}`);
  }
});
