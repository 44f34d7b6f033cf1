// npm run bench (users) — GET /v3/users through the gateway in an app with 100 users and in one
// with 50,000, and the ratio of their p99 latencies (the goal is at most 2).
//
// Seeding 50,000 users through the API would take minutes at FerretDB's write rate, so both apps
// are seeded in bulk with the users service's own code: its decider decides each CreateUser, the
// envelopes and commits are written in the commit store's document format (published, so the relay
// does not replay them to Kafka), its projection turns each event into the read-model document,
// and its directory adapter writes the listing chunks. Both apps are seeded the same way. On FerretDB
// the seeding dominates the run (each batch gets slower as the collections grow, and the services'
// relays scan their whole commit collections every 5 s): about 1–3 minutes on a shared 2-core machine.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, startBenchStack } from './stack.mjs';
import { MongoClient } from 'mongodb';
import { UserDirectory, userDecider, userDocId, userStream, usersProjection } from '@chat/users';

const SMALL = Number(process.env.BENCH_USERS_SMALL ?? 100);
const LARGE = Number(process.env.BENCH_USERS_LARGE ?? 50_000);
const REQUESTS = Number(process.env.BENCH_USERS_REQUESTS ?? 120);
const BATCH = 1000;

const { infra, services, databaseSuffix, createApp, onStop, stop } = await startBenchStack();
const mongo = new MongoClient(infra.mongoUrl);
onStop(() => mongo.close().catch(() => undefined));

/** Decides, stores and projects `count` user creations for one app, in batches. */
async function seed(db, appId, count) {
  const started = performance.now();
  const base = Date.now() - count;
  const actor = { keyId: 'bench-seed', scope: 'fullAccess' };
  const userDocs = [];
  for (let from = 0; from < count; from += BATCH) {
    const commits = [];
    const docs = [];
    for (let i = from; i < Math.min(count, from + BATCH); i++) {
      const uid = `user-${String(i).padStart(6, '0')}`;
      const now = new Date(base + i);
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const profile = { uid, name: `User ${i}`, role: 'default', tags: [] };
      const state = userDecider.initialState();
      const decided = userDecider.decide({ type: 'CreateUser', profile, now: nowSeconds }, state);
      const streamId = userStream(appId, uid);
      const envelopes = decided.map((event, index) => ({
        id: randomUUID(),
        type: event.type,
        schemaVersion: 1,
        appId,
        streamId,
        version: index + 1,
        occurredAt: now.toISOString(),
        actor,
        correlationId: 'bench-seed',
        causationId: null,
        data: event.data,
      }));
      const snapshot = { version: userDecider.snapshotVersion, state: decided.reduce(userDecider.evolve, state) };
      commits.push({
        _id: randomUUID(),
        appId,
        streamId,
        startVersion: 1,
        endVersion: envelopes.length,
        events: JSON.stringify(envelopes),
        snapshot: JSON.stringify(snapshot),
        committedAt: now,
        published: true,
      });
      let doc = null;
      for (const envelope of envelopes) doc = usersProjection.evolve(doc, envelope, userDocId(appId, uid));
      docs.push({ ...doc, _id: userDocId(appId, uid), _positions: { user: envelopes.length }, _rev: 1 });
      userDocs.push(doc);
    }
    await db.collection('commits').insertMany(commits);
    await db.collection('users').insertMany(docs);
  }
  await new UserDirectory(db).replaceAll(appId, userDocs);
  return performance.now() - started;
}

async function timeGet(app, path, direct = false) {
  const started = performance.now();
  // Direct calls carry the identity headers the gateway would have set (services trust only those).
  const response = direct
    ? await fetch(`${services.serviceUrls.users}${path}`, { headers: { 'x-chat-app-id': app.appId, 'x-chat-key-id': 'bench', 'x-chat-scope': 'fullAccess' } })
    : await fetch(`${services.gatewayUrl}${path}`, { headers: app.chat });
  const body = await response.json();
  const elapsed = performance.now() - started;
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(body)}`);
  return { elapsed, body };
}

/** Interleaves the apps' requests so that outside load on the machine hits both alike. */
async function measure(cases) {
  const samples = cases.map(() => []);
  for (let round = 0; round < REQUESTS; round++) {
    for (const [index, { app, path, direct }] of cases.entries()) samples[index].push((await timeGet(app, path, direct)).elapsed);
  }
  return samples.map((values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  });
}

try {
  const [small, large] = [await createApp('users-list small'), await createApp('users-list large')];
  await mongo.connect();
  const db = mongo.db(`chat_users_${databaseSuffix}`);
  const seededSmall = await seed(db, small.appId, SMALL);
  const seededLarge = await seed(db, large.appId, LARGE);
  console.log(`users list: seeded ${SMALL} users in ${(seededSmall / 1000).toFixed(1)} s and ${LARGE} in ${(seededLarge / 1000).toFixed(1)} s`);

  // Both answers must be real pages of the right size before any timing.
  for (const [app, count] of [[small, SMALL], [large, LARGE]]) {
    const { body } = await timeGet(app, '/v3/users');
    if (body.meta.pagination.total !== count || body.data.length !== Math.min(100, count)) {
      throw new Error(`unexpected listing: total ${body.meta.pagination.total}, ${body.data.length} users`);
    }
  }
  for (let i = 0; i < 20; i++) await Promise.all([timeGet(small, '/v3/users'), timeGet(large, '/v3/users')]);
  await sleep(200);

  const deepPage = Math.floor(LARGE / 100 / 2);
  const [first, firstLarge, deepLarge, directLarge] = await measure([
    { app: small, path: '/v3/users' },
    { app: large, path: '/v3/users' },
    { app: large, path: `/v3/users?page=${deepPage}` },
    { app: large, path: '/v3/users', direct: true },
  ]);
  const ms = (value) => `${value.toFixed(1)} ms`;
  console.log(`  GET /v3/users (perPage 100), ${REQUESTS} sequential requests each, through the gateway:`);
  console.log(`    ${String(SMALL).padStart(6)} users, page 1:   p50 ${ms(first.p50)}  p99 ${ms(first.p99)}`);
  console.log(`    ${String(LARGE).padStart(6)} users, page 1:   p50 ${ms(firstLarge.p50)}  p99 ${ms(firstLarge.p99)}`);
  console.log(`    ${String(LARGE).padStart(6)} users, page ${deepPage}: p50 ${ms(deepLarge.p50)}  p99 ${ms(deepLarge.p99)}`);
  console.log(`    ${String(LARGE).padStart(6)} users, page 1, straight to the users service: p50 ${ms(directLarge.p50)}  p99 ${ms(directLarge.p99)}`);
  console.log(`  p99 ratio (${LARGE} users / ${SMALL} users, page 1): ${(firstLarge.p99 / first.p99).toFixed(2)} (goal ≤ 2)`);
} finally {
  await stop();
}
