// What a store's history costs a write, and whether SQLite settings of the runner change it (ADR 0152).
// Two FerretDB runners, already running (e.g. one with the default settings, one with
// `--sqlite-pragmas cache_size(-65536)`), each get the same two databases of the messages read model (its
// own indexes): "aged", loaded first with AGED_MESSAGES messages over AGED_CONVERSATIONS conversations,
// and "fresh", empty. Then, in turns (A B, B A, …), each runner takes the send path's write shape — small
// unordered insertMany of new messages over 52 conversations, 8 commands in flight — into one database
// at a time, measured alone from /proc. Prints per runner its CPU per message and messages/s, aged ÷ fresh,
// and the second runner ÷ the first.
//
//   AB_RUNNERS=default=mongodb://127.0.0.1:27661/@<pid>,cache=mongodb://127.0.0.1:27662/@<pid> node bench/store-aged-ab.mjs
// A runner's entry may end in @<its log> (a runner started with --stats-interval): then each database's write
// commands are printed from the runner's tally, ms a command fresh → aged, beside the small write the send path
// makes with each batch, a findAndModify of the app's `message_sequences` counter (ADR 0161: the small writes grew
// most on an aged store).
// Knobs: AB_SLICES per runner and database (6), AGED_MESSAGES (600000), AGED_CONVERSATIONS (5000),
// SLICE_MESSAGES (3000), BATCH (8).
import { MongoClient } from 'mongodb';
import { MessagesReadModels, docOfSent, messageDocId } from '@chat/messages';
import { processCpuMs } from './processCpu.mjs';
import { fileSize, readTally } from './storeTally.mjs';

const knob = (name, fallback) => Number(process.env[name] ?? fallback);
const SLICES = knob('AB_SLICES', 6);
const AGED_MESSAGES = knob('AGED_MESSAGES', 600_000);
const AGED_CONVERSATIONS = knob('AGED_CONVERSATIONS', 5_000);
const SLICE_MESSAGES = knob('SLICE_MESSAGES', 3_000);
const BATCH = knob('BATCH', 8);
const IN_FLIGHT = 8;
if (!process.env.AB_RUNNERS) throw new Error('AB_RUNNERS=name=<mongo url>@<pid>,name=<mongo url>@<pid> is required');

const entity = (uid) => ({ entity: { uid, name: `User ${uid}`, role: 'default', status: 'offline', createdAt: 1_700_000_000 }, entityType: 'user' });
/** The messages read model's document of message `id` in conversation `c` (as projection-rebuild.mjs builds them). */
function messageDocument(id, c) {
  const [a, b] = [`u${String(c).padStart(5, '0')}a`, `u${String(c).padStart(5, '0')}b`];
  const conversationId = `${a}_user_${b}`;
  const data = {
    id: String(id),
    conversationId,
    sender: a,
    receiver: b,
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: `message ${id} about nothing in particular`, entities: { sender: entity(a), receiver: entity(b) } },
    sentAt: 1_700_000_000 + Math.floor(id / 100),
  };
  return { ...docOfSent('bench', data), _id: messageDocId('bench', data.id), _positions: { [`messages:bench:${conversationId}`]: id }, _rev: 1 };
}

const suffix = Date.now().toString(36);
const runners = await Promise.all(
  process.env.AB_RUNNERS.split(',').map(async (entry) => {
    const [name, rest] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
    const [url, pid, log] = rest.split('@');
    const client = await new MongoClient(url, { maxPoolSize: IN_FLIGHT + 2 }).connect();
    const databases = { aged: client.db(`agedab_old_${suffix}`), fresh: client.db(`agedab_new_${suffix}`) };
    for (const db of Object.values(databases)) await new MessagesReadModels(db).ensureIndexes();
    return { name, client, databases, pid: Number(pid), log, logFrom: log ? fileSize(log) : 0, totals: new Map() };
  }),
);
if (runners.length !== 2) throw new Error('AB_RUNNERS names two runners');

/** Writes `count` messages from id `first` over `conversations`, BATCH a command, IN_FLIGHT commands at once. */
async function write(db, first, count, conversations) {
  let next = first;
  const end = first + count;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < end) {
        const from = next;
        next = Math.min(end, next + BATCH);
        const docs = [];
        for (let id = from; id < next; id++) docs.push(messageDocument(id, id % conversations));
        await db.collection('messages').insertMany(docs, { ordered: false });
        await db.collection('message_sequences').findOneAndUpdate({ _id: 'bench' }, { $inc: { value: docs.length } }, { upsert: true, returnDocument: 'after' });
      }
    }),
  );
}

try {
  for (const r of runners) {
    const started = performance.now();
    for (let id = 1; id <= AGED_MESSAGES; id += 1_000) {
      const docs = Array.from({ length: Math.min(1_000, AGED_MESSAGES - id + 1) }, (_, j) => messageDocument(id + j, (id + j) % AGED_CONVERSATIONS));
      await r.databases.aged.collection('messages').insertMany(docs, { ordered: false });
    }
    console.log(`${r.name}: the aged database holds ${AGED_MESSAGES} messages over ${AGED_CONVERSATIONS} conversations (${((performance.now() - started) / 1_000).toFixed(0)} s)`);
  }
  // The tally from here on: the slices' commands, not the load's (the runner's last report of the load first).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  for (const r of runners) if (r.log) r.logFrom = fileSize(r.log);
  let nextId = AGED_MESSAGES + 1;
  for (let slice = 0; slice < SLICES; slice++) {
    for (const r of slice % 2 ? [...runners].reverse() : runners) {
      for (const kind of slice % 2 ? ['fresh', 'aged'] : ['aged', 'fresh']) {
        const cpuFrom = processCpuMs(r.pid);
        const wallFrom = performance.now();
        await write(r.databases[kind], nextId, SLICE_MESSAGES, 52);
        nextId += SLICE_MESSAGES;
        const total = r.totals.get(kind) ?? { cpuMs: 0, wallMs: 0, messages: 0 };
        r.totals.set(kind, { cpuMs: total.cpuMs + processCpuMs(r.pid) - cpuFrom, wallMs: total.wallMs + performance.now() - wallFrom, messages: total.messages + SLICE_MESSAGES });
      }
    }
  }
  const figures = runners.map((r) => {
    const of = (kind) => r.totals.get(kind);
    const cpu = (kind) => of(kind).cpuMs / of(kind).messages;
    const rate = (kind) => (of(kind).messages / of(kind).wallMs) * 1_000;
    console.log(
      `${r.name}: fresh ${cpu('fresh').toFixed(4)} ms CPU a message, ${rate('fresh').toFixed(0)}/s; aged ${cpu('aged').toFixed(4)} ms, ${rate('aged').toFixed(0)}/s; ` +
        `aged ÷ fresh CPU ${(cpu('aged') / cpu('fresh')).toFixed(2)}, rate ${(rate('aged') / rate('fresh')).toFixed(2)}`,
    );
    return { cpu, rate };
  });
  for (const r of runners.filter((runner) => runner.log)) {
    const tally = readTally(r.log, r.logFrom, fileSize(r.log), 'none');
    const of = (kind, command, collection) => tally?.rows.find((row) => row.kind === 'write' && row.command === command && row.collection === `${r.databases[kind].databaseName}.${collection}`);
    for (const [command, collection] of [['findAndModify', 'message_sequences'], ['insert', 'messages']]) {
      const [fresh, aged] = ['fresh', 'aged'].map((kind) => of(kind, command, collection));
      if (!fresh || !aged) continue;
      const [mf, ma] = [fresh, aged].map((row) => row.busyMs / row.commands);
      console.log(`${r.name}: ${command} ${collection} ${mf.toFixed(3)} → ${ma.toFixed(3)} ms a command (aged ÷ fresh ${(ma / mf).toFixed(2)}; ${fresh.commands} | ${aged.commands} cmds)`);
    }
  }
  for (const kind of ['fresh', 'aged']) {
    const [a, b] = figures;
    console.log(`${kind}: ${runners[1].name} ÷ ${runners[0].name} CPU a message ${(b.cpu(kind) / a.cpu(kind)).toFixed(2)}, rate ${(b.rate(kind) / a.rate(kind)).toFixed(2)}`);
  }
} finally {
  for (const r of runners) {
    for (const db of Object.values(r.databases)) await db.dropDatabase();
    await r.client.close();
  }
}
