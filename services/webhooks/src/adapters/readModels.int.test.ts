import { randomUUID } from 'node:crypto';
import { webhookDocuments } from '@chat/contracts';
import type { EventEnvelope, WebhookDocumentEvent } from '@chat/contracts';
import { indexSearchedBy } from '@chat/mongo/testing';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryDocument } from '../domain/delivery.js';
import { DeliveryLog } from './deliveryLog.js';
import { WebhookReadModels } from './readModels.js';
import { MongoDocumentStore } from '@chat/mongo';

const versions = new Map<string, number>();
const envelope = (appId: string, type: string, data: Record<string, unknown>): EventEnvelope => {
  const version = (versions.get(appId) ?? 0) + 1;
  versions.set(appId, version);
  return {
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
  };
};
const appCreated = (appId: string) => envelope(appId, 'AppCreated', { appId, name: appId, region: 'us', createdAt: 1 });
const webhookCreated = (appId: string, webhookId: string) =>
  envelope(appId, 'WebhookCreated', {
    appId,
    webhookId,
    name: webhookId,
    url: 'http://127.0.0.1:1/hook',
    useBasicAuth: false,
    enabled: true,
    retryOnFailure: true,
    at: 1,
    sealedSecret: 'sealed',
  });
const webhookDeleted = (appId: string, webhookId: string) => envelope(appId, 'WebhookDeleted', { appId, webhookId, at: 2 });

/** The filters of the reads the webhooks read models send, per collection, while `run` runs. */
async function readsDuring(client: MongoClient, run: () => Promise<unknown>): Promise<Array<{ collection: string; filter: Document }>> {
  const reads: Array<{ collection: string; filter: Document }> = [];
  const listener = (event: CommandStartedEvent) => {
    const command = event.command;
    if (event.commandName === 'find') reads.push({ collection: String(command['find']), filter: command['filter'] as Document });
    if (event.commandName === 'count' || event.commandName === 'aggregate') reads.push({ collection: String(command[event.commandName]), filter: command });
  };
  client.on('commandStarted', listener);
  try {
    await run();
  } finally {
    client.off('commandStarted', listener);
  }
  return reads;
}

const byIdOnly = (filter: Document) => Object.keys(filter).length === 1 && '_id' in filter;

describe('webhooks read models (real store)', () => {
  let client: MongoClient;
  let db: Db;
  let readModels: WebhookReadModels;

  beforeAll(async () => {
    client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', { monitorCommands: true });
    await client.connect();
    db = client.db(`webhooks_int_${randomUUID().slice(0, 8)}`);
    readModels = new WebhookReadModels(db);
    await readModels.ensureIndexes();
  });

  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it("loads an app's live webhooks by _id only, in creation order, and redelivery changes nothing", async () => {
    const appId = `app${randomUUID().slice(0, 8)}`;
    const history = [appCreated(appId), webhookCreated(appId, 'w1'), webhookCreated(appId, 'w2'), webhookCreated(appId, 'w3'), webhookDeleted(appId, 'w2')];
    await readModels.apply(history);
    await readModels.apply(history.slice(1, 3)); // a redelivery of older events
    let loaded: Array<{ webhookId: string }> = [];
    const reads = await readsDuring(client, async () => {
      loaded = await readModels.liveWebhooks(appId);
    });
    expect(loaded.map((w) => w.webhookId)).toEqual(['w1', 'w3']);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((r) => !byIdOnly(r.filter))).toEqual([]);
  });

  it('reads nothing but the id list for an app without webhooks', async () => {
    const appId = `app${randomUUID().slice(0, 8)}`;
    await readModels.apply([appCreated(appId)]);
    const reads = await readsDuring(client, () => readModels.liveWebhooks(appId));
    expect(reads).toEqual([{ collection: 'app_webhooks', filter: { _id: appId } }]);
  });

  it('an app whose history predates the id list is still read whole (by appId)', async () => {
    const appId = `app${randomUUID().slice(0, 8)}`;
    // Its creation and first webhook were applied before this read model existed: only a later webhook reaches the list.
    const old = webhookDocuments.evolve(null, webhookCreated(appId, 'old') as WebhookDocumentEvent);
    await db.collection('webhooks').insertOne({ _id: `${appId}:old` as never, ...old, _rev: 1, _positions: { app: 1 } });
    await readModels.apply([webhookCreated(appId, 'new')]);
    let loaded: Array<{ webhookId: string }> = [];
    const reads = await readsDuring(client, async () => {
      loaded = await readModels.liveWebhooks(appId);
    });
    expect(loaded.map((w) => w.webhookId)).toEqual(['old', 'new']);
    // That read by `appId` searches the app's index, not every app's webhooks.
    const byApp = reads.filter((r) => r.collection === 'webhooks' && 'appId' in r.filter);
    expect(byApp).toHaveLength(1);
    expect(await indexSearchedBy(db, 'webhooks', byApp[0]?.filter ?? {})).toMatch(/app_created/);
  });

  it('costs the same with thousands of other apps’ webhooks stored (before/after figure)', async () => {
    const appId = `app${randomUUID().slice(0, 8)}`;
    await readModels.apply([appCreated(appId), webhookCreated(appId, 'w1')]);
    const time = async (run: () => Promise<unknown>, rounds = 5) => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await run();
      return (performance.now() - started) / rounds;
    };
    const scan = () => db.collection('webhooks').find({ appId, deleted: false }).toArray();
    const before = { byId: await time(() => readModels.liveWebhooks(appId)), scan: await time(scan) };
    const others = Number(process.env['WEBHOOKS_INT_OTHER_APPS'] ?? 3000);
    const docs = Array.from({ length: others }, (_, i) => ({ _id: `other${i}:w`, appId: `other${i}`, webhookId: 'w', deleted: false, triggers: [], url: 'http://x' }));
    for (let from = 0; from < docs.length; from += 500) await db.collection('webhooks').insertMany(docs.slice(from, from + 500) as never[]);
    const after = { byId: await time(() => readModels.liveWebhooks(appId)), scan: await time(scan) };
    console.log(`liveWebhooks with 0 → ${others} other apps' webhooks: ${before.byId.toFixed(2)} → ${after.byId.toFixed(2)} ms; the scan it replaces ${before.scan.toFixed(2)} → ${after.scan.toFixed(2)} ms`);
    expect((await readModels.liveWebhooks(appId)).map((w) => w.webhookId)).toEqual(['w1']);
  });

  it("reads a webhook's delivery log through its index, not every app's deliveries", async () => {
    const appId = `app${randomUUID().slice(0, 8)}`;
    const delivery = (app: string, i: number, status: DeliveryDocument['status']): DeliveryDocument => ({
      appId: app,
      webhookId: 'hook',
      deliveryId: `${app}-d${i}`,
      trigger: 'message_sent',
      eventId: `${app}-e${i}`,
      orderKey: 'conversation',
      sourceVersion: i,
      body: '{}',
      status,
      attempts: status === 'pending' ? 0 : 1,
      occurredAt: 1_000 + i,
      queuedAt: 1_000 + i,
    });
    const log = new DeliveryLog(new MongoDocumentStore(db, 'deliveries'));
    await log.insert([delivery(appId, 1, 'delivered'), delivery(appId, 2, 'failed'), delivery(appId, 3, 'delivered')]);
    const page = () => readModels.listDeliveries(appId, 'hook', { status: 'delivered' }, { page: 1, perPage: 1 });
    const time = async (run: () => Promise<unknown>, rounds = 5) => {
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await run();
      return (performance.now() - started) / rounds;
    };
    const before = await time(page);
    // Other tenants' webhooks of the same name (ADR 0074's aged copies are exactly that).
    const others = Number(process.env['WEBHOOKS_INT_OTHER_DELIVERIES'] ?? 5000);
    const docs = Array.from({ length: others }, (_, i) => delivery(`other${i % 100}`, i, 'delivered'));
    for (let from = 0; from < docs.length; from += 500) await log.insert(docs.slice(from, from + 500));
    const after = await time(page);
    console.log(`a delivery log page with 0 → ${others} other apps' deliveries stored: ${before.toFixed(2)} → ${after.toFixed(2)} ms`);

    let listed: Awaited<ReturnType<typeof page>> = { items: [], total: 0 };
    let finished: Array<{ document: DeliveryDocument }> = [];
    const reads = await readsDuring(client, async () => {
      listed = await page();
      finished = await readModels.finishedDeliveries(appId, 'hook', 1_002, 10);
    });
    expect(listed.total).toBe(2);
    expect(listed.items.map((d) => d.deliveryId)).toEqual([`${appId}-d3`]);
    expect(finished.map((d) => d.document.deliveryId)).toEqual([`${appId}-d2`, `${appId}-d3`]);
    const finds = reads.filter((r) => r.collection === 'deliveries' && !('aggregate' in r.filter));
    expect(finds).toHaveLength(2);
    // What the store does with each of them: SQLite's own plan, a search of the log's index (a scan before).
    for (const { filter } of finds) {
      const explained = await db.command({ explain: { find: 'deliveries', filter } });
      const plan = JSON.stringify(explained['queryPlanner']);
      expect(plan).toMatch(/USING INDEX \S*webhook_queued/);
      expect(plan).not.toMatch(/SCAN/);
    }
  });
});
