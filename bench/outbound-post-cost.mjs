// node bench/outbound-post-cost.mjs <delivery dist dir> [<another delivery dist dir> …] — the CPU one
// `OutboundHttp.post` costs the calling process (a webhook delivery, a custom push provider's call):
// each build's dist (packages/delivery/dist, or a copy of another build's) is loaded in this process
// and POSTs a webhook-sized JSON body to a receiver in a child process (its CPU is not counted), with
// CONCURRENCY calls in flight over keep-alive sockets. Builds alternate for ROUNDS rounds of CALLS
// calls; it prints this process's CPU µs per call (utime + stime) per build and round, the median per
// build and each build's median ÷ the first's. Knobs: CALLS (4000), ROUNDS (6), CONCURRENCY (8).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { forkOkReceiver } from './okReceiver.mjs';

const CALLS = Number(process.env.CALLS ?? 4_000);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);

const dirs = process.argv.slice(2);
if (dirs.length === 0) throw new Error('usage: node bench/outbound-post-cost.mjs <delivery dist dir> [<another> …]');
const receiver = await forkOkReceiver();
const { port } = receiver;
const url = `http://127.0.0.1:${port}/hook`;
const body = JSON.stringify({ trigger: 'message_sent', appId: 'app', region: 'us', webhook: 'wh', data: { message: { id: '1', text: 'x'.repeat(600) } } });
const builds = [];
for (const dir of dirs) {
  const delivery = await import(pathToFileURL(resolve(dir, 'index.js')).href);
  const sender = new delivery.OutboundHttp({ timeoutMs: 10_000, policy: delivery.privateAddressPolicy('127.0.0.0/8'), maxSocketsPerHost: CONCURRENCY });
  builds.push({ dir, sender, perCall: [] });
}
const run = async (sender, calls) => {
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      next += 1;
      const sent = await sender.post(url, { 'webhook-id': 'id', 'user-agent': 'bench' }, body);
      if (sent.status !== 200) throw new Error(`answer ${sent.status} ${sent.error}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
};
for (const { sender } of builds) await run(sender, 500); // warm-up: sockets open, code compiled
for (let round = 0; round < ROUNDS; round++) {
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const from = process.cpuUsage();
    await run(build.sender, CALLS);
    const used = process.cpuUsage(from);
    build.perCall.push((used.user + used.system) / CALLS);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(builds[0].perCall);
for (const build of builds) {
  const m = median(build.perCall);
  console.log(`${build.dir}: ${build.perCall.map((v) => v.toFixed(1)).join(', ')} µs/call; median ${m.toFixed(1)} (${(m / base).toFixed(2)}×)`);
}
for (const build of builds) build.sender.close();
receiver.stop();
