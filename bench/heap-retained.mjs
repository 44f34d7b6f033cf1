// node bench/heap-retained.mjs — what the services on a send's path keep alive under load (ADR 0155 ties the send
// path's stalls to the messages and conversations services' mark-compacts, whose pauses grow with the live heap
// and whose frequency with what is promoted into it). One stack as bench/cost.mjs starts it (features off, 50
// one-on-one pairs and 2 groups of 20) with every service's inspector on a free port; an open loop at BENCH_RATE
// (200) msg/s for BENCH_SECONDS (60); then, on each of BENCH_SERVICES (default messages,conversations), a full GC
// and a heap snapshot, summarised by bench/heapSnapshotSummary.mjs: the live heap, the self size by constructor
// and the largest retainers with their path from the roots. BENCH_SNAPSHOT_DIR keeps the snapshots for DevTools.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { printHeapSummary, summarizeHeapSnapshot } from './heapSnapshotSummary.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { inspectService } from './inspectorSession.mjs';
import { runBenchOn, startBenchStack } from './stack.mjs';
import { createTraffic } from './traffic.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const SERVICES = (process.env.BENCH_SERVICES ?? 'messages,conversations').split(',');
const SNAPSHOT_DIR = process.env.BENCH_SNAPSHOT_DIR;

process.env.SERVICE_NODE_ARGS = `${process.env.SERVICE_NODE_ARGS ?? ''} --inspect=127.0.0.1:0`.trim();
const stack = await startBenchStack({ name: 'heap retained' });

/** A full GC, then the snapshot's JSON, streamed in chunks over the inspector. */
async function snapshotOf(service) {
  const session = await inspectService(service);
  try {
    const chunks = [];
    session.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => chunks.push(chunk));
    await session.send('HeapProfiler.enable');
    await session.send('HeapProfiler.collectGarbage');
    await session.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    return chunks.join('');
  } finally {
    session.close();
  }
}

await runBenchOn(stack, async () => {
  const client = createGatewayClient(stack.services.gatewayUrl);
  const traffic = createTraffic({ client, chat: stack.app.chat, setupTimeoutS: 300 });
  const targets = await traffic.createTargets({ prefix: 'hr', pairs: 50, groups: 2, groupSize: 20, patienceMs: 300_000 });
  const loop = await traffic.openLoop(targets, RATE, { seconds: SECONDS, visibleSamplesPerSecond: 1, pollBudgetPerSecond: 20, visibleTimeoutS: 5 });
  console.log(`open loop ${RATE} msg/s for ${SECONDS} s: ${loop.errors}; send p50 ${loop.sendP50?.toFixed(1)} p99 ${loop.sendP99?.toFixed(1)} ms`);
  await sleep(2_000);
  for (const service of SERVICES) {
    const text = await snapshotOf(service);
    if (SNAPSHOT_DIR) await writeFile(join(SNAPSHOT_DIR, `${service}.heapsnapshot`), text);
    printHeapSummary(service, summarizeHeapSnapshot(text, TOP));
  }
});
