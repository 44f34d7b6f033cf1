// The per-API-key audit trail's projection (ADR 0034) against the store's own ceiling, in one run:
//
//   1. raw: the trail's entries inserted one document per event, insertMany of 100 per command, which is
//      what the store can take when nothing is read and nothing is folded;
//   2. projection: the same events through the management service's AuditTrail (head and chunk documents,
//      read by `_id`, folded, written in grouped compare-and-set commands), fed as the audit consumer
//      feeds it: runs of up to 1,000 events, three partitions' lanes at once;
//   3. reads: the first page of a key's trail and a page filtered by type (which walks the retained log).
//
//   node bench/audit.mjs [events] [keys]   (starts only FerretDB on MONGO_PORT unless MONGO_URL is set)
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../packages/mongo/dist/index.js';
import { AUDIT_COLLECTION, AuditTrail, auditEntryOf } from '@chat/management';
import { percentile } from './percentile.mjs';

const RUN = 1_000;
const LANES = 3;
const TYPES = ['MessageSent', 'UserCreated', 'GroupMembersAdded', 'MessageEdited', 'ReactionAdded'];

/** Events caused by `keys` API keys of one app, in time order, as the services publish them. */
function eventsFor(appId, count, keys) {
  const keyIds = Array.from({ length: keys }, () => randomBytes(8).toString('hex'));
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    type: TYPES[i % TYPES.length],
    schemaVersion: 1,
    appId,
    streamId: `messages:${appId}:u${i % 500}_user_u${(i + 1) % 500}`,
    version: Math.floor(i / 500) + 1,
    occurredAt: new Date(start + i * 3).toISOString(),
    actor: { uid: `u${i % 500}`, keyId: keyIds[i % keys], scope: 'fullAccess' },
    correlationId: randomUUID(),
    causationId: null,
    data: {},
  }));
}

async function rawInsertRate(db, events) {
  const documents = events.map((event) => {
    const { appId, keyId, entry } = auditEntryOf(event);
    return { _id: `${appId}:${keyId}:${entry.k}`, entry: JSON.stringify(entry) };
  });
  const startedAt = performance.now();
  for (let at = 0; at < documents.length; at += 100) await db.collection('raw').insertMany(documents.slice(at, at + 100), { ordered: false });
  return Math.round(documents.length / ((performance.now() - startedAt) / 1000));
}

/** Runs of ≤ 1,000 events, each lane (a partition) one run at a time, lanes side by side. */
async function projectionRate(trail, events) {
  const lanes = Array.from({ length: LANES }, (_, lane) => events.filter((_, i) => i % LANES === lane));
  const startedAt = performance.now();
  await Promise.all(
    lanes.map(async (lane) => {
      for (let at = 0; at < lane.length; at += RUN) await trail.apply(lane.slice(at, at + RUN));
    }),
  );
  return Math.round(events.length / ((performance.now() - startedAt) / 1000));
}

async function readLatencies(trail, appId, keyId, filter, rounds = 30) {
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const startedAt = performance.now();
    await trail.page(appId, keyId, filter, 0, 100);
    times.push(performance.now() - startedAt);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export async function benchAudit({ mongoUrl, events = 30_000, keys = 10 }) {
  const client = new MongoClient(mongoUrl, { maxPoolSize: 20 });
  await client.connect();
  const db = client.db(`bench_audit_${randomBytes(3).toString('hex')}`);
  try {
    const appId = `bench${randomBytes(3).toString('hex')}`;
    const all = eventsFor(appId, events, keys);
    const rawInsertsPerSecond = await rawInsertRate(db, all);
    const trail = new AuditTrail(new MongoDocumentStore(db, AUDIT_COLLECTION));
    const eventsPerSecond = await projectionRate(trail, all);
    // Redelivery of everything: every event is found and skipped.
    const redeliveredPerSecond = await projectionRate(trail, all);
    const { keyId } = all[0].actor;
    const head = await trail.head(appId, keyId);
    const retained = head.chunks.reduce((sum, c) => sum + c.count, 0);
    const firstPage = await readLatencies(trail, appId, keyId, {});
    const byType = await readLatencies(trail, appId, keyId, { types: new Set(['MessageSent']) });
    const documents = await db.collection(AUDIT_COLLECTION).countDocuments();
    return { events, keys, rawInsertsPerSecond, eventsPerSecond, redeliveredPerSecond, retained, chunks: head.chunks.length, documents, firstPage, byType };
  } finally {
    await db.dropDatabase().catch(() => {});
    await client.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { registerShutdown, startInfrastructure } = await import('@chat/devstack');
  let mongoUrl = process.env.MONGO_URL;
  let stop = async () => {};
  if (!mongoUrl) {
    const infra = await startInfrastructure({ parts: ['ferretdb'] });
    stop = () => infra.stop();
    mongoUrl = infra.mongoUrl;
  }
  const unregister = registerShutdown(() => stop());
  try {
    const r = await benchAudit({ mongoUrl, events: Number(process.argv[2] ?? 30_000), keys: Number(process.argv[3] ?? 10) });
    console.log(`audit trail: ${r.events} events of ${r.keys} keys`);
    console.log(`  raw store: insertMany of one document per event (100 per command) = ${r.rawInsertsPerSecond} docs/s`);
    console.log(`  projection: ${r.eventsPerSecond} events/s (${(r.eventsPerSecond / r.rawInsertsPerSecond).toFixed(2)}× the raw rate), ${r.documents} documents`);
    console.log(`  redelivery of all of them: ${r.redeliveredPerSecond} events/s, nothing written`);
    console.log(`  one key: ${r.retained} entries in ${r.chunks} chunks; first page of 100 p50 ${r.firstPage.p50.toFixed(1)} ms p99 ${r.firstPage.p99.toFixed(1)} ms; filtered by type p50 ${r.byType.p50.toFixed(1)} ms p99 ${r.byType.p99.toFixed(1)} ms`);
  } finally {
    await stop();
    unregister();
  }
}
