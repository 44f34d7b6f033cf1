import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@chat/contracts';
import { filtersSent, indexSearchedBy } from '@chat/mongo/testing';
import { MongoClient } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementReadModels } from './readModels.js';

const envelope = (appId: string, version: number, type: string, data: Record<string, unknown>): EventEnvelope => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  appId,
  streamId: `app:${appId}`,
  version,
  occurredAt: new Date().toISOString(),
  actor: { keyId: 'management', scope: 'management' },
  correlationId: 'int-test',
  causationId: null,
  data,
});
const hashOf = (appId: string, n: number) => `${n}${appId}`.padEnd(64, 'f').slice(0, 64);
const keyCreated = (appId: string, version: number, n: number, createdAt: number) =>
  envelope(appId, version, 'ApiKeyCreated', {
    keyId: hashOf(appId, n).slice(0, 16),
    keyHash: hashOf(appId, n),
    maskedKey: `${n}…${appId}`,
    name: `key ${n}`,
    scope: 'fullAccess',
    createdBy: 'app_system',
    createdAt,
  });

describe("management reads of an app's keys and webhooks (real store)", () => {
  let client: MongoClient;
  let db: Db;
  let readModels: ManagementReadModels;
  const appId = `app${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', { monitorCommands: true });
    await client.connect();
    db = client.db(`mgmt_keys_int_${randomUUID().slice(0, 8)}`);
    readModels = new ManagementReadModels(db);
    await readModels.ensureIndexes();
    const history = [
      envelope(appId, 1, 'AppCreated', { appId, name: 'Keys', region: 'us', createdAt: 100 }),
      keyCreated(appId, 2, 1, 100),
      keyCreated(appId, 3, 2, 300),
      keyCreated(appId, 4, 3, 200),
      envelope(appId, 5, 'ApiKeyDeleted', { keyId: hashOf(appId, 3).slice(0, 16), keyHash: hashOf(appId, 3), deletedAt: 400 }),
    ];
    await readModels.apply(history);
    await readModels.apply(history.slice(1, 4)); // redelivered
  });

  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('lists, finds by key id and lists revoked keys reading apikeys by _id only, newest first', async () => {
    const filters = await filtersSent(client, 'apikeys', async () => {
      expect((await readModels.liveKeys([appId])).map((k) => k.name)).toEqual(['key 2', 'key 1']);
      expect((await readModels.allKeys(appId)).map((k) => [k.name, k.deleted])).toEqual([
        ['key 2', false],
        ['key 3', true],
        ['key 1', false],
      ]);
      expect(await readModels.findLiveKey(appId, hashOf(appId, 3).slice(0, 16))).toBeNull();
      expect(await readModels.findKey(appId, hashOf(appId, 3).slice(0, 16))).toMatchObject({ name: 'key 3', deleted: true });
      expect(await readModels.findLiveKey(appId, hashOf(appId, 1).slice(0, 16))).toMatchObject({ name: 'key 1' });
    });
    expect(filters.length).toBeGreaterThan(0);
    expect(filters.filter((f) => Object.keys(f).join() !== '_id')).toEqual([]);
    // Another app's key is not found through this app (an app without a list is read by `appId`).
    expect(await readModels.findLiveKey('otherApp', hashOf(appId, 1).slice(0, 16))).toBeNull();
  });

  it("lists an app's live webhooks reading webhooks by _id only, oldest first", async () => {
    const webhook = (version: number, webhookId: string, at: number) =>
      envelope(appId, version, 'WebhookCreated', { appId, webhookId, name: webhookId, url: 'http://127.0.0.1:1/', useBasicAuth: false, enabled: true, retryOnFailure: true, at, sealedSecret: 's' });
    const history = [webhook(6, 'wb', 500), webhook(7, 'wa', 500), webhook(8, 'wc', 400), envelope(appId, 9, 'WebhookDeleted', { appId, webhookId: 'wc', at: 600 })];
    await readModels.apply(history);
    await readModels.apply(history.slice(0, 3));
    const filters = await filtersSent(client, 'webhooks', async () => {
      expect((await readModels.liveWebhooks(appId)).map((w) => w.webhookId)).toEqual(['wa', 'wb']);
    });
    expect(filters.length).toBeGreaterThan(0);
    expect(filters.filter((f) => Object.keys(f).join() !== '_id')).toEqual([]);
  });

  it('reads an app without id lists by appId through its indexes, not every app’s keys and webhooks', async () => {
    const legacy = `legacy${randomUUID().slice(0, 8)}`;
    await db.collection('apikeys').insertMany([
      { _id: hashOf(legacy, 1), appId: legacy, keyId: 'k1', name: 'old key', deleted: false, createdAt: 1 },
      { _id: hashOf(legacy, 2), appId: legacy, keyId: 'k2', name: 'revoked', deleted: true, createdAt: 2 },
    ] as never[]);
    await db.collection('webhooks').insertOne({ _id: `${legacy}:w`, appId: legacy, webhookId: 'w', deleted: false, createdAt: 1 } as never);
    const keyFinds = await filtersSent(client, 'apikeys', async () => {
      expect((await readModels.liveKeys([legacy])).map((k) => k.name)).toEqual(['old key']);
      expect((await readModels.allKeys(legacy)).map((k) => k.name)).toEqual(['revoked', 'old key']);
    });
    const webhookFinds = await filtersSent(client, 'webhooks', async () => {
      expect((await readModels.liveWebhooks(legacy)).map((w) => w.webhookId)).toEqual(['w']);
    });
    const byApp = (filters: Document[]) => filters.filter((f) => 'appId' in f);
    expect(byApp(keyFinds)).toHaveLength(2);
    expect(byApp(webhookFinds)).toHaveLength(1);
    for (const filter of byApp(keyFinds)) expect(await indexSearchedBy(db, 'apikeys', filter)).toMatch(/app_key/);
    expect(await indexSearchedBy(db, 'webhooks', byApp(webhookFinds)[0] ?? {})).toMatch(/app_created/);
  });

  it('costs the same with thousands of other apps’ keys stored (before/after figure)', async () => {
    const time = async (run: () => Promise<unknown>, rounds = 5) => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await run();
      return (performance.now() - started) / rounds;
    };
    const scan = () => db.collection('apikeys').find({ appId: { $in: [appId] }, deleted: false }).toArray();
    const before = { byId: await time(() => readModels.liveKeys([appId])), scan: await time(scan) };
    const others = Number(process.env['MANAGEMENT_INT_OTHER_KEYS'] ?? 4000);
    const docs = Array.from({ length: others }, (_, i) => ({ _id: `other${String(i).padStart(8, '0')}`.padEnd(64, '0'), appId: `other${i >> 1}`, keyId: `k${i}`, deleted: false, createdAt: i }));
    for (let from = 0; from < docs.length; from += 500) await db.collection('apikeys').insertMany(docs.slice(from, from + 500) as never[]);
    const after = { byId: await time(() => readModels.liveKeys([appId])), scan: await time(scan) };
    console.log(`liveKeys with 0 → ${others} other apps' keys: ${before.byId.toFixed(2)} → ${after.byId.toFixed(2)} ms; the scan it replaces ${before.scan.toFixed(2)} → ${after.scan.toFixed(2)} ms`);
    expect((await readModels.liveKeys([appId])).map((k) => k.name)).toEqual(['key 2', 'key 1']);
  });
});
