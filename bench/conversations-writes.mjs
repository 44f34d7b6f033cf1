// The conversations read model's writes per one-on-one message on FerretDB, without the rest of the stack
// (ADR 0048): the same generated messages, in batches of 7 (what the cost benchmark's consumer gets), are
// applied to one database per build of the service, alternately, so that a loaded machine moves every build
// alike. Prints per build the write lock and statements per message by collection (the FerretDB runner's
// tally), the store process's CPU per message, the applying process's CPU per message, and document sizes.
//
//   node bench/conversations-writes.mjs                     (this worktree's build)
//   CONVERSATIONS_BUILDS=main=/path/to/old/dist,new=services/conversations/dist node bench/conversations-writes.mjs
//
// PAIRS (50) conversations; HUBS=n makes n users share them (each with PAIRS/n peers: full inboxes);
// MESSAGES (1,500) measured after one warm-up message per conversation. Starts FerretDB on MONGO_PORT with
// FERRETDB_STATS_INTERVAL=1s unless one already answers there (then it must have been started with it).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';
import { probeMessages } from './probeMessages.mjs';
import { processCpuMs } from './processCpu.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAIRS = Number(process.env.PAIRS ?? 50);
const HUBS = Number(process.env.HUBS ?? 0);
const MESSAGES = Number(process.env.MESSAGES ?? 1_500);
const BATCH = 7;
const APP = 'app-writes-probe';

process.env.FERRETDB_STATS_INTERVAL ??= '1s';
const { registerShutdown, startInfrastructure } = await import('@chat/devstack');
const infra = await startInfrastructure({ parts: ['ferretdb'] });
registerShutdown(() => infra.stop());
const port = new URL(infra.mongoUrl).port;
const storeLog = resolve(ROOT, '.infra', 'logs', `ferretdb-${port}.log`);
const storePidFile = resolve(ROOT, '.infra', 'run', `ferretdb-${port}.pid`);
const storePid = existsSync(storePidFile) ? Number(readFileSync(storePidFile, 'utf8')) : undefined;
if (!existsSync(storeLog)) throw new Error(`no FerretDB runner log at ${storeLog}: start FerretDB with FERRETDB_STATS_INTERVAL`);

const builds = (process.env.CONVERSATIONS_BUILDS ?? `this=${resolve(ROOT, 'services/conversations/dist')}`).split(',').map((entry) => {
  const [name, dir] = entry.split('=');
  return { name, dir: resolve(ROOT, dir) };
});
const client = new MongoClient(infra.mongoUrl, { maxPoolSize: 12, monitorCommands: true });
// Reads of the list phase: find commands and documents returned, by collection.
let readTally = null;
client.on('commandSucceeded', (event) => {
  if (!readTally || event.commandName !== 'find') return;
  const ns = event.reply?.cursor?.ns ?? '';
  const collection = ns.slice(ns.indexOf('.') + 1);
  const row = readTally.get(collection) ?? { commands: 0, documents: 0 };
  row.commands += 1;
  row.documents += event.reply?.cursor?.firstBatch?.length ?? 0;
  readTally.set(collection, row);
});
const stamp = randomBytes(3).toString('hex');
const runs = [];
for (const { name, dir } of builds) {
  const { ConversationReadModels } = await import(pathToFileURL(resolve(dir, 'adapters/readModels.js')).href);
  const db = client.db(`writes_probe_${name}_${stamp}`);
  runs.push({ name, db, models: new ConversationReadModels(db), storeCpu: 0, ownCpu: 0 });
}

const sent = probeMessages(APP, { hubs: HUBS });

try {
  const warm = Array.from({ length: PAIRS }, (_, pair) => sent(pair));
  for (const run of runs) await run.models.apply(warm);
  await sleep(1_500);
  const from = statSync(storeLog).size;
  let measured = 0;
  while (measured < MESSAGES) {
    const batch = Array.from({ length: BATCH }, () => sent(Math.floor(Math.random() * PAIRS)));
    for (const run of runs) {
      const store = processCpuMs(storePid);
      const own = process.cpuUsage();
      await run.models.apply(batch);
      const spent = process.cpuUsage(own);
      run.ownCpu += (spent.user + spent.system) / 1000;
      run.storeCpu += processCpuMs(storePid) - store;
    }
    measured += batch.length;
  }
  await sleep(2_500);
  const tally = readFileSync(storeLog).subarray(from).toString('utf8');
  for (const run of runs) await report(run, tally, measured);
  await readLists(builds);
} finally {
  for (const run of runs) await run.db.dropDatabase();
  await client.close();
  await infra.stop();
}

async function report(run, tally, measured) {
  const rows = new Map();
  let lockMs = 0;
  for (const line of tally.split('\n')) {
    const match = /^\s+write\s+(\S+)\s+(\S+)\s+\d+ cmds\s+(\d+) stmts\s+([\d.]+) ms busy/.exec(line);
    if (!match || !match[2].startsWith(`${run.db.databaseName}.`)) continue;
    const key = `${match[1]} ${match[2].slice(run.db.databaseName.length + 1)}`;
    const row = rows.get(key) ?? { statements: 0, ms: 0 };
    row.statements += Number(match[3]);
    row.ms += Number(match[4]);
    rows.set(key, row);
    lockMs += Number(match[4]);
  }
  console.log(`== ${run.name}: ${measured} messages`);
  for (const [key, row] of [...rows].sort((x, y) => y[1].ms - x[1].ms)) {
    console.log(`  ${key.padEnd(44)} ${(row.ms / measured).toFixed(3)} ms  ${(row.statements / measured).toFixed(2)} stmts per message  (${(row.ms / row.statements).toFixed(3)} ms a statement)`);
  }
  console.log(`  write lock ${(lockMs / measured).toFixed(3)} ms, store CPU ${(run.storeCpu / measured).toFixed(2)} ms, applying process CPU ${(run.ownCpu / measured).toFixed(3)} ms per message`);
  for (const collection of ['conversation_timelines', 'conversation_inboxes', 'conversation_timeline_revisions', 'conversation_inbox_revisions']) {
    const docs = await run.db.collection(collection).find({}).toArray();
    // The appends collection holds three kinds (ADR 0089): timeline revisions, inbox revisions (`~i`), copies (`~c`).
    const kinds = new Map();
    for (const doc of docs) {
      const kind = collection === 'conversation_timeline_revisions' ? ({ '~i': ' (inbox revisions)', '~c': ' (message copies)' }[doc._id.slice(0, 2)] ?? ' (timeline revisions)') : '';
      if (!kinds.has(kind)) kinds.set(kind, []);
      kinds.get(kind).push(doc);
    }
    for (const [kind, list] of kinds) {
      const sizes = list.map((doc) => JSON.stringify(doc).length).sort((x, y) => x - y);
      console.log(`  ${collection}${kind}: ${sizes.length} documents, median ${sizes[Math.floor(sizes.length / 2)]} B, largest ${sizes.at(-1)} B`);
      if (process.env.SHOW_DOCS) console.log(`    e.g. ${JSON.stringify(list[Math.floor(list.length / 2)])}`);
    }
  }
}

/**
 * What a list costs to read after these writes (ADR 0056): the first page (up to 100) of a user with the
 * most conversations, read READS times per build, alternately, each by a fresh read model (no process
 * has the documents in memory: the cold case, a replica that did not write them).
 */
async function readLists(builds) {
  const READS = Number(process.env.READS ?? 20);
  const user = HUBS ? 'probe-hub-0' : 'probe-receiver-0';
  const spent = runs.map(() => ({ ms: [], storeCpu: 0, ownCpu: 0, reads: new Map() }));
  for (let i = 0; i < READS; i++) {
    for (const [index, run] of runs.entries()) {
      const { ConversationReadModels } = await import(pathToFileURL(resolve(builds[index].dir, 'adapters/readModels.js')).href);
      const models = new ConversationReadModels(run.db);
      const store = processCpuMs(storePid);
      const own = process.cpuUsage();
      const started = performance.now();
      readTally = spent[index].reads;
      const page = await models.conversations.listForUser(APP, user, [], {}, 1, 100);
      readTally = null;
      spent[index].ms.push(performance.now() - started);
      const used = process.cpuUsage(own);
      spent[index].ownCpu += (used.user + used.system) / 1000;
      spent[index].storeCpu += processCpuMs(storePid) - store;
      if (i === 0) console.log(`  ${run.name}: list of ${user}: ${page.items.length} conversations, total ${page.total}`);
    }
  }
  for (const [index, run] of runs.entries()) {
    const sorted = [...spent[index].ms].sort((x, y) => x - y);
    const reads = [...spent[index].reads].map(([collection, row]) => `${collection} ${(row.commands / READS).toFixed(1)} finds ${(row.documents / READS).toFixed(0)} docs`).join(', ');
    console.log(`== ${run.name}: per list: ${reads}`);
    console.log(`== ${run.name}: a list of ${user}, cold, ${READS} reads: p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms; store CPU ${(spent[index].storeCpu / READS).toFixed(1)} ms, reading process CPU ${(spent[index].ownCpu / READS).toFixed(1)} ms per list`);
  }
}

function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}
