// node bench/conversations-apply-cpu.mjs <build root A> <build root B> … — the conversations read model's own
// Node CPU per one-on-one message, without the store or the broker (ADR 0107): each build's
// `ConversationReadModel` over in-memory collections wrapped in the same stores as the service
// (`adapters/readModels.ts`: text fields, head plus revisions, one gathered insert per run, compact inboxes,
// the list copy dropped, moved copies), fed the same generated messages in runs of BENCH_BATCH (2), the
// builds alternating run by run in one process so that the machine's load falls on all alike. Each build
// gets its own copy of every event (decoded events are per process). Prints CPU ms per message per build
// and the ratio to the first. Knobs: BENCH_BATCH (2), BENCH_MESSAGES (30,000, after 5,000 warm-up), BENCH_PAIRS (20).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { probeMessages } from './probeMessages.mjs';

const BATCH = Number(process.env.BENCH_BATCH ?? 2);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30_000);
const WARM_UP = 5_000;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 20);
const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error('usage: node bench/conversations-apply-cpu.mjs <build root> [<build root> …]');

/** The service's store stack (adapters/readModels.ts) with every collection in memory. */
async function modelOf(root) {
  const load = (path) => import(pathToFileURL(resolve(root, path)).href);
  const { InMemoryDocumentStore } = await load('packages/mongo/dist/index.js');
  const dist = 'services/conversations/dist/';
  const { ConversationReadModel } = await load(`${dist}projections/conversationReadModel.js`);
  const { RevisionTailStore } = await load(`${dist}projections/revisionTailStore.js`);
  const { TextFieldsStore } = await load(`${dist}projections/timelineStores.js`);
  const { GatheredInserts } = await load(`${dist}projections/gatheredInserts.js`);
  const { CompactInboxStore } = await load(`${dist}projections/compactInboxStore.js`);
  const { ListCopyOnReadStore } = await load(`${dist}projections/listCopyStore.js`);
  const { MovedStore } = await load(`${dist}projections/movedStore.js`);
  const { APPENDS, CONVERSATION_COLLECTIONS } = await load(`${dist}adapters/readModels.js`);
  const memory = () => new InMemoryDocumentStore();
  const fields = (collection) => new TextFieldsStore(memory(), collection.text);
  const appends = new GatheredInserts(memory());
  return new ConversationReadModel({
    timelines: new ListCopyOnReadStore(new RevisionTailStore(fields(CONVERSATION_COLLECTIONS.timelines), appends.store(''), { foldOn: ['appId', 'conversationType', 'participants', 'group', 'listed'] })),
    history: fields(CONVERSATION_COLLECTIONS.history),
    members: fields(CONVERSATION_COLLECTIONS.members),
    copies: new MovedStore(appends.store(APPENDS.copies), memory()),
    inboxes: new CompactInboxStore(new RevisionTailStore(fields(CONVERSATION_COLLECTIONS.inboxes), appends.store(APPENDS.inboxRevisions), { legacyTails: memory(), foldEvery: 32 })),
    scans: { timelinesWith: async () => [], membersOf: async () => [] },
  });
}

const sent = probeMessages('app-apply-probe');

const builds = [];
for (const root of roots) builds.push({ root, model: await modelOf(resolve(root)), cpuUs: 0 });
for (let done = 0; done < WARM_UP + MESSAGES; done += BATCH) {
  const batch = Array.from({ length: BATCH }, () => sent(Math.floor(Math.random() * PAIRS)));
  for (const build of builds) {
    const events = structuredClone(batch);
    const from = process.cpuUsage();
    await build.model.apply(events);
    const spent = process.cpuUsage(from);
    if (done >= WARM_UP) build.cpuUs += spent.user + spent.system;
  }
}
const first = builds[0].cpuUs;
for (const build of builds) {
  console.log(`${build.root}: ${(build.cpuUs / 1000 / MESSAGES).toFixed(4)} ms CPU per message (runs of ${BATCH}), ×${(build.cpuUs / first).toFixed(2)}`);
}
