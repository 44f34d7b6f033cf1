// Two FerretDB runner builds, already running, compared on the runner's own CPU per document by kind of
// operation (ADR 0115): insertMany of the messages read model's documents (1,000 a command, the read
// model's indexes), find by `$in` of 50 ids, replaceOne by `_id` of one of them, and insertOne of a small
// document. The runners take turns in short slices (A B, B A, …), each operation measured alone from
// /proc, so a drift in the machine's other load falls on both alike. Prints per operation each runner's
// CPU ms per document and the ratio second ÷ first.
//
//   AB_RUNNERS=main=mongodb://127.0.0.1:27661/@<pid>,new=mongodb://127.0.0.1:27662/@<pid> node bench/runner-document-ab.mjs
// Knobs: AB_SLICES per runner (6).
import { MongoClient } from 'mongodb';
import { MessagesReadModels, docOfSent, messageDocId } from '@chat/messages';
import { processCpuMs } from './processCpu.mjs';

const SLICES = Number(process.env.AB_SLICES ?? 6);
if (!process.env.AB_RUNNERS) throw new Error('AB_RUNNERS=name=<mongo url>@<pid>,name=<mongo url>@<pid> is required');
const runners = await Promise.all(
  process.env.AB_RUNNERS.split(',').map(async (entry) => {
    const [name, rest] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
    const [url, pid] = rest.split('@');
    const client = await new MongoClient(url, { maxPoolSize: 4 }).connect();
    const db = client.db(`docab_${Date.now().toString(36)}`);
    await new MessagesReadModels(db).ensureIndexes();
    return { name, client, db, pid: Number(pid), sent: 0, totals: new Map() };
  }),
);
if (runners.length !== 2) throw new Error('AB_RUNNERS names two runners');

const entity = (uid) => ({ entity: { uid, name: `User ${uid}`, role: 'default', status: 'offline', createdAt: 1_700_000_000 }, entityType: 'user' });
/** The messages read model's document of the `sequence`th message of one conversation (as projection-rebuild.mjs). */
function messageDocument(sequence) {
  const data = {
    id: String(sequence),
    conversationId: 'u0000a_user_u0000b',
    sender: 'u0000a',
    receiver: 'u0000b',
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: { text: `message ${sequence} about nothing in particular`, entities: { sender: entity('u0000a'), receiver: entity('u0000b') } },
    sentAt: 1_700_000_000 + Math.floor(sequence / 100),
  };
  return { ...docOfSent('bench', data), _id: messageDocId('bench', data.id), _positions: { 'messages:bench:u0000a_user_u0000b': sequence }, _rev: 1 };
}

/** Each operation returns the documents it wrote or read. */
const OPERATIONS = {
  'insertMany(1000)': async (r) => {
    for (let c = 0; c < 5; c++) await r.db.collection('messages').insertMany(Array.from({ length: 1_000 }, () => messageDocument(++r.sent)), { ordered: false });
    return 5_000;
  },
  'find $in of 50': async (r) => {
    let read = 0;
    for (let c = 0; c < 40; c++) {
      const ids = Array.from({ length: 50 }, (_, j) => messageDocId('bench', String(1 + ((c * 50 + j) % r.sent))));
      read += (await r.db.collection('messages').find({ _id: { $in: ids } }).toArray()).length;
    }
    return read;
  },
  replaceOne: async (r) => {
    for (let c = 0; c < 200; c++) {
      const doc = messageDocument(1 + ((c * 7) % r.sent));
      await r.db.collection('messages').replaceOne({ _id: doc._id }, { ...doc, _rev: 2 + c });
    }
    return 200;
  },
  insertOne: async (r) => {
    for (let c = 0; c < 300; c++) await r.db.collection('small').insertOne({ appId: 'bench', kind: 'receipt', uid: `u${c}`, at: Date.now(), n: c });
    return 300;
  },
};

try {
  for (let slice = 0; slice < SLICES; slice++) {
    for (const r of slice % 2 ? [...runners].reverse() : runners) {
      for (const [name, operation] of Object.entries(OPERATIONS)) {
        const from = processCpuMs(r.pid);
        const documents = await operation(r);
        const total = r.totals.get(name) ?? { ms: 0, documents: 0 };
        r.totals.set(name, { ms: total.ms + processCpuMs(r.pid) - from, documents: total.documents + documents });
      }
    }
  }
  for (const name of Object.keys(OPERATIONS)) {
    const [a, b] = runners.map((r) => r.totals.get(name).ms / r.totals.get(name).documents);
    console.log(`${name}: ${runners[0].name} ${a.toFixed(4)}, ${runners[1].name} ${b.toFixed(4)} ms of runner CPU a document (${runners[0].totals.get(name).documents} each); ${runners[1].name} ÷ ${runners[0].name} ${(b / a).toFixed(2)}`);
  }
} finally {
  for (const r of runners) {
    await r.db.dropDatabase();
    await r.client.close();
  }
}
