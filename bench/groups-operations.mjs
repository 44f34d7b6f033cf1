// Group operations through the gateway on real infrastructure: read throughput (get a group, list
// groups, list members) with autocannon, and the latency of the writes a chat app makes all the time
// (create a group, add a member, kick it again), measured one after another. Prints figures only.
import autocannon from 'autocannon';
import { percentile, startBenchStack } from './stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WRITES = Number(process.env.BENCH_WRITES ?? 200);
const MEMBERS = 50;

const { services, api, app, stop } = await startBenchStack({ name: 'bench groups' });
const { chat } = app;
const uids = Array.from({ length: MEMBERS }, (_, i) => `member-${i}`);
for (const uid of ['owner', 'visitor', ...uids]) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });
for (let i = 0; i < 20; i++) {
  await api('POST', '/v3/groups', { headers: { ...chat, onbehalfof: 'owner' }, body: { guid: `g-${i}`, name: `Group ${i}`, type: 'public', tags: ['bench'] } });
}
await api('POST', '/v3/groups/g-0/members', { headers: chat, body: { participants: uids } });

function throughput(label, path, headers = chat) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${services.gatewayUrl}${path}`, headers, connections: CONNECTIONS, duration: DURATION_S }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0) return reject(new Error(`${label}: ${result.non2xx} non-2xx answers`));
      console.log(`  ${label.padEnd(44)} ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms`);
      resolve();
    });
  });
}

async function latency(label, count, operation) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await operation(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`  ${label.padEnd(44)} ${count} sequential   p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms`);
}

console.log(`groups through the gateway (${CONNECTIONS} connections, ${DURATION_S} s each)`);
await throughput('GET /v3/groups/{guid} (onBehalfOf)', '/v3/groups/g-0', { ...chat, onbehalfof: 'owner' });
await throughput('GET /v3/groups?perPage=20', '/v3/groups?perPage=20');
await throughput(`GET /v3/groups/{guid}/members (${MEMBERS + 1})`, '/v3/groups/g-0/members');
console.log('writes, one at a time');
await latency('POST /v3/groups', WRITES, (i) =>
  api('POST', '/v3/groups', { headers: { ...chat, onbehalfof: 'owner' }, body: { guid: `w-${i}`, name: `W ${i}`, type: 'public' } }),
);
await latency('POST /v3/groups/{guid}/members (join)', WRITES / 2, (i) =>
  api('POST', `/v3/groups/w-${i}/members`, { headers: { ...chat, onbehalfof: 'visitor' }, body: { participants: ['visitor'] } }),
);
await latency('DELETE /v3/groups/{guid}/members/{uid} (kick)', WRITES / 2, (i) =>
  api('DELETE', `/v3/groups/w-${i}/members/visitor`, { headers: { ...chat, onbehalfof: 'owner' } }),
);
await stop();
process.exit(0);
