// What each index of the messages collection costs a send: the store's CPU per inserted message
// document, in commands of 8 (a group commit's size at the bench's rate), 2 in flight, for index sets
// alternated in rounds on one FerretDB runner (ADR 0097). Documents are shaped as `docOfSent` writes
// them (with the runtime's stored fields), ids growing like a busy app's. With FERRETDB_STATS_INTERVAL
// (e.g. 1s) the runner's write-lock ms per document is printed too (storeTally.mjs).
//
//   node bench/message-indexes.mjs      (starts only FerretDB on MONGO_PORT unless MONGO_URL is set)
//   INDEX_ROUNDS (4), INDEX_DOCS (4000 per set and round), INDEX_SETS (six,five,none)
import { MongoClient } from 'mongodb';
import { processCpuMs } from './processCpu.mjs';
import { localStorePid, storeForBench } from './store-raw.mjs';
import { fileSize, parseDuration, readTally, storeLogOf } from './storeTally.mjs';

const ALL = {
  app_order: { appId: 1, seq: 1 },
  app_time: { appId: 1, sentAt: 1 },
  conversation_order: { appId: 1, conversationId: 1, seq: 1 },
  thread_order: { appId: 1, parentId: 1, seq: 1 },
  sender_order: { appId: 1, sender: 1, seq: 1 },
  receiver_order: { appId: 1, receiver: 1, seq: 1 },
};
const without = (...names) => Object.fromEntries(Object.entries(ALL).filter(([name]) => !names.includes(name)));
const ALL_SETS = {
  'six (main)': ALL,
  'five (no app_time)': without('app_time'),
  'none': {},
};
/** INDEX_SETS=six,five measures only those (the first word of each name). */
const SETS = process.env.INDEX_SETS
  ? Object.fromEntries(Object.entries(ALL_SETS).filter(([name]) => process.env.INDEX_SETS.split(',').includes(name.split(' ')[0])))
  : ALL_SETS;

const ROUNDS = Number(process.env.INDEX_ROUNDS ?? 4);
const DOCS = Number(process.env.INDEX_DOCS ?? 4_000);
const PER_COMMAND = 8;
const IN_FLIGHT = 2;

let nextSeq = 1_000;
function messageDoc(appId) {
  const seq = nextSeq++;
  const pair = seq % 50;
  const text = `message ${seq} from the benchmark, about as long as a chat line`;
  return {
    _id: `${appId}:${seq}`,
    _rev: 1,
    _positions: { [`messages-${pair}`]: seq },
    appId,
    id: String(seq),
    seq,
    conversationId: `u${pair}_user_u${pair + 50}`,
    sender: `u${pair}`,
    receiver: `u${pair + 50}`,
    receiverType: 'user',
    category: 'message',
    type: 'text',
    data: JSON.stringify({ text, entities: { sender: { entity: { uid: `u${pair}`, name: `User ${pair}` }, entityType: 'user' } } }),
    searchText: text.toLowerCase(),
    hasAttachments: false,
    hasLinks: false,
    tags: [],
    mentionedUids: [],
    hasMentions: false,
    isReply: false,
    sentAt: 1_790_000_000 + Math.floor(seq / 100),
    updatedAt: 1_790_000_000 + Math.floor(seq / 100),
    isDeleted: false,
    replyCount: 0,
    reactions: [],
    hasReactions: false,
  };
}

const tallyEveryMs = process.env.FERRETDB_STATS_INTERVAL ? parseDuration(process.env.FERRETDB_STATS_INTERVAL) : null;

async function measure(db, storePid, storeLog, name, indexes, round) {
  const collection = db.collection(`messages_${round}_${Object.keys(indexes).length}`);
  for (const [indexName, keys] of Object.entries(indexes)) await collection.createIndex(keys, { name: indexName });
  // A warm-up command so the table and its indexes exist before the clock starts.
  await collection.insertMany(Array.from({ length: PER_COMMAND }, () => messageDoc('bench-app')));
  let left = DOCS;
  const tallyFrom = fileSize(storeLog);
  const before = processCpuMs(storePid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left > 0) {
        left -= PER_COMMAND;
        await collection.insertMany(Array.from({ length: PER_COMMAND }, () => messageDoc('bench-app')));
      }
    }),
  );
  const cpu = (processCpuMs(storePid) - before) / DOCS;
  const wall = (performance.now() - started) / DOCS;
  let lock = NaN;
  if (tallyEveryMs !== null) {
    await new Promise((resolve) => setTimeout(resolve, tallyEveryMs + 500));
    const rows = readTally(storeLog, tallyFrom, fileSize(storeLog), '')?.rows ?? [];
    lock = rows.filter((row) => row.kind === 'write' && row.command === 'insert' && row.collection.endsWith(collection.collectionName)).reduce((sum, row) => sum + row.busyMs, 0) / DOCS;
  }
  await collection.drop();
  return { name, cpu, wall, lock };
}

const { mongoUrl, stop: stopInfrastructure } = await storeForBench();
const client = await MongoClient.connect(mongoUrl);
try {
  const db = client.db(`bench_message_indexes_${process.pid}`);
  const storePid = await localStorePid(db);
  if (storePid === undefined) throw new Error('the store runs where /proc cannot see it');
  const storeLog = storeLogOf(mongoUrl);
  const totals = new Map(Object.keys(SETS).map((name) => [name, { cpu: [], wall: [], lock: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.entries(SETS) : Object.entries(SETS).reverse();
    for (const [name, indexes] of order) {
      const result = await measure(db, storePid, storeLog, name, indexes, round);
      for (const figure of ['cpu', 'wall', 'lock']) totals.get(name)[figure].push(result[figure]);
      console.log(`round ${round + 1} ${name.padEnd(20)} store CPU ${result.cpu.toFixed(3)} ms/doc, write lock ${result.lock.toFixed(3)}, wall ${result.wall.toFixed(3)}`);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const paired = totals.get('six (main)').cpu.map((six, round) => (totals.get('five (no app_time)')?.cpu[round] ?? NaN) / six);
  console.log(`\nfive ÷ six, store CPU, by round: ${paired.map((ratio) => ratio.toFixed(2)).join(' ')}; below 1 in ${paired.filter((ratio) => ratio < 1).length} of ${paired.length}`);
  const [baseCpu, baseLock] = ['cpu', 'lock'].map((figure) => median(totals.get('six (main)')[figure]));
  console.log('\nmedians per message document (ratio to six indexes): store CPU | write lock');
  for (const [name, { cpu, lock }] of totals) {
    console.log(`  ${name.padEnd(20)} ${median(cpu).toFixed(3)} ms ×${(median(cpu) / baseCpu).toFixed(2)} | ${median(lock).toFixed(3)} ms ×${(median(lock) / baseLock).toFixed(2)}`);
  }
  await db.dropDatabase();
} finally {
  await client.close();
  await stopInfrastructure();
}
