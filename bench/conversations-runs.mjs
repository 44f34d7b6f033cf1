// node bench/conversations-runs.mjs [other conversations dist] — what concurrent projection runs cost
// the conversations database (ADR 0067), apart from the machine's load: the conversations read models
// of this worktree's build and of another (default: none; e.g. ../other-checkout/services/conversations/dist)
// on the devstack's FerretDB (MONGO_PORT), alternately, each in a database of its own. Every round
// applies 3 runs at once, as a fetch's 3 partitions arrive, each run 1–2 one-on-one messages of its
// own conversations (50 pairs). Counts the commands each build sends (the driver's command
// monitoring: writes by collection, reads) per message, the CPU of this process and of the store
// process per message, and times the rounds.
import { pathToFileURL } from 'node:url';
import { startInfrastructure } from '@chat/devstack';
import { MongoClient } from 'mongodb';
import { execFileSync } from 'node:child_process';
import { percentile } from './percentile.mjs';
import { processCpuMs } from './processCpu.mjs';

const builds = [new URL('../services/conversations/dist', import.meta.url).pathname, ...process.argv.slice(2)];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 150);
const infra = await startInfrastructure({ parts: ['ferretdb'], log: () => undefined });
// The store process: the one listening on the devstack's FerretDB port (its CPU per message).
const storePort = new URL(infra.mongoUrl).port;
const storePid = Number(/pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${storePort}`]).toString())?.[1]);

let nextId = 1;
function messageSent(pair, version) {
  const [a, b] = [`u${pair}a`, `u${pair}b`];
  const conversationId = `${a}_user_${b}`;
  const id = String(nextId++);
  const at = 1_700_000_000 + nextId;
  return {
    id: `event-${id}`,
    type: 'MessageSent',
    schemaVersion: 1,
    appId: 'app1',
    streamId: `messages:app1:${conversationId}`,
    version,
    occurredAt: new Date(at * 1000).toISOString(),
    data: { id, conversationId, sender: a, receiver: b, receiverType: 'user', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: at },
  };
}

async function runBuild(dist, tag) {
  const { ConversationReadModels } = await import(pathToFileURL(`${dist}/adapters/readModels.js`).href);
  const client = new MongoClient(infra.mongoUrl, { monitorCommands: true });
  await client.connect();
  const db = client.db(`runs_${tag}_${Date.now()}`);
  const models = new ConversationReadModels(db);
  await models.ensureIndexes();
  const versions = new Map();
  const next = (pair) => {
    const v = (versions.get(pair) ?? 0) + 1;
    versions.set(pair, v);
    return messageSent(pair, v);
  };
  // Each conversation's first message first (inserts), so the rounds measure the steady state.
  for (let pair = 0; pair < 50; pair++) await models.apply([next(pair)]);
  const commands = new Map();
  client.on('commandStarted', (event) => {
    const collection = event.command[event.commandName];
    const key = typeof collection === 'string' ? `${event.commandName} ${collection}` : event.commandName;
    commands.set(key, (commands.get(key) ?? 0) + 1);
  });
  const rounds = [];
  let messages = 0;
  const cpu = process.cpuUsage();
  const storeCpu = processCpuMs(storePid);
  for (let round = 0; round < ROUNDS; round++) {
    // Partition p holds pairs p, p + 3, …: runs of one round never share a conversation.
    const runs = [0, 1, 2].map((p) => {
      const size = 1 + (round % 2);
      return Array.from({ length: size }, (_, i) => next((p + 3 * ((round * 2 + i) % 16)) % 48));
    });
    messages += runs.flat().length;
    const started = performance.now();
    await Promise.all(runs.map((run) => models.apply(run)));
    rounds.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  const storeUsed = processCpuMs(storePid) - storeCpu;
  await client.close();
  rounds.sort((a, b) => a - b);
  const writes = [...commands].filter(([key]) => /^(insert|update|delete)/.test(key)).reduce((s, [, n]) => s + n, 0);
  const reads = [...commands].filter(([key]) => key.startsWith('find')).reduce((s, [, n]) => s + n, 0);
  console.log(
    `${tag.padEnd(6)} ${messages} messages in ${ROUNDS} rounds of 3 runs: write commands ${(writes / messages).toFixed(2)}/msg, finds ${(reads / messages).toFixed(2)}/msg; round p50 ${percentile(rounds, 50).toFixed(1)} p99 ${percentile(rounds, 99).toFixed(1)} ms; CPU/msg: this process ${((used.user + used.system) / 1000 / messages).toFixed(2)} ms, the store ${(storeUsed / messages).toFixed(2)} ms`,
  );
  console.log(`       ${[...commands].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ${(n / messages).toFixed(2)}`).join(', ')}`);
}

for (let pass = 0; pass < 2; pass++) for (const [i, dist] of builds.entries()) await runBuild(dist, i === 0 ? 'this' : `other${i}`);
await infra.stop();
process.exit(0);
