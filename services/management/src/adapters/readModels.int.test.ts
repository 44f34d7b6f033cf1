import { randomUUID } from 'node:crypto';
import { API_KEY_INVALIDATION_CHANNEL, apiKeyCacheKey } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { connectMongo } from '@chat/mongo';
import type { MongoConnection } from '@chat/mongo';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyCacheInvalidator } from './cacheInvalidator.js';
import { ManagementReadModels } from './readModels.js';

const appId = `app${randomUUID().slice(0, 8)}`;
let version = 0;
const envelope = (type: string, data: Record<string, unknown>): EventEnvelope => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  appId,
  streamId: `app:${appId}`,
  version: ++version,
  occurredAt: new Date().toISOString(),
  actor: { keyId: 'management', scope: 'management' },
  correlationId: 'int-test',
  causationId: null,
  data,
});

const keyHash = 'a'.repeat(64);
const appCreated = envelope('AppCreated', { appId, name: 'Integration', region: 'us', createdAt: 100 });
const keyCreated = envelope('ApiKeyCreated', {
  keyId: keyHash.slice(0, 16),
  keyHash,
  maskedKey: 'abcd…wxyz',
  name: 'Rest API Key',
  scope: 'fullAccess',
  createdBy: 'app_system',
  createdAt: 100,
});
const keyRescoped = envelope('ApiKeyUpdated', { keyId: keyHash.slice(0, 16), keyHash, name: 'Renamed', scope: 'authOnly', updatedAt: 200 });
const keyDeleted = envelope('ApiKeyDeleted', { keyId: keyHash.slice(0, 16), keyHash, deletedAt: 300 });

describe('management read models (real Mongo)', () => {
  let mongo: MongoConnection;
  let readModels: ManagementReadModels;

  beforeAll(async () => {
    mongo = await connectMongo(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017', `mgmt_int_${randomUUID().slice(0, 8)}`, 'int-test');
    readModels = new ManagementReadModels(mongo.db);
    await readModels.ensureIndexes();
  });

  afterAll(async () => {
    await mongo.db.dropDatabase();
    await mongo.close();
  });

  it('projects an app and its key, and answers the gateway lookup', async () => {
    await readModels.apply([appCreated, keyCreated]);
    expect(await readModels.findApp(appId)).toEqual({ appId, name: 'Integration', region: 'us', createdAt: 100, settings: [], collaborators: [] });
    expect(await readModels.findLiveKeyByHash(keyHash)).toMatchObject({ appId, scope: 'fullAccess', deleted: false });
    expect(await readModels.liveKeys([appId])).toHaveLength(1);
  });

  it('ignores redelivery and keeps a deleted key deleted when its creation is replayed', async () => {
    await readModels.apply([keyRescoped, keyDeleted]);
    await readModels.apply([appCreated, keyCreated, keyRescoped]);
    expect(await readModels.findLiveKeyByHash(keyHash)).toBeNull();
    expect(await readModels.liveKeys([appId])).toEqual([]);
    expect(await readModels.findApp(appId)).toMatchObject({ name: 'Integration' });
  });

  it('searches and pages apps', async () => {
    const { apps, total, more } = await readModels.listApps('INTEGR', { after: undefined, skip: 0 }, 10);
    expect([total, more]).toEqual([1, false]);
    expect(apps[0]?.appId).toBe(appId);
    expect((await readModels.listApps('no such (app', { after: undefined, skip: 0 }, 10)).total).toBe(0);
  });

  it('a deleted app is gone from gets and lists, its keys from the gateway lookup, and a replayed creation brings nothing back', async () => {
    const otherApp = `app${randomUUID().slice(0, 8)}`;
    const hash = 'b'.repeat(64);
    const at = (type: string, v: number, data: Record<string, unknown>): EventEnvelope => ({ ...envelope(type, data), appId: otherApp, streamId: `app:${otherApp}`, version: v });
    const created = at('AppCreated', 1, { appId: otherApp, name: 'Doomed', region: 'us', createdAt: 100 });
    const key = at('ApiKeyCreated', 2, { keyId: hash.slice(0, 16), keyHash: hash, maskedKey: 'bbbb…bbbb', name: 'k', scope: 'fullAccess', createdBy: 'app_system', createdAt: 100 });
    await readModels.apply([created, key]);
    expect(await readModels.findLiveKeyByHash(hash)).not.toBeNull();
    await readModels.apply([at('AppDeleted', 3, { appId: otherApp, keyHashes: [hash], deletedAt: 200 })]);
    await readModels.apply([created, key]);
    expect(await readModels.findApp(otherApp)).toBeNull();
    expect(await readModels.findLiveKeyByHash(hash)).toBeNull();
    expect((await readModels.listApps('Doomed', { after: undefined, skip: 0 }, 10)).total).toBe(0);
  });
});

describe('api key cache invalidation (real Redis)', () => {
  const url = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  let redis: Redis;
  let subscriber: Redis;

  beforeAll(() => {
    redis = new Redis(url);
    subscriber = new Redis(url);
  });

  afterAll(async () => {
    await Promise.all([redis.quit(), subscriber.quit()]);
  });

  it('deletes the cached identity and tells every gateway, twice', async () => {
    const hash = randomUUID().replaceAll('-', '');
    const heard: string[] = [];
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === API_KEY_INVALIDATION_CHANNEL && message === hash) heard.push(message);
    });
    await subscriber.subscribe(API_KEY_INVALIDATION_CHANNEL);
    await redis.set(apiKeyCacheKey(hash), '{"stale":true}', 'EX', 60);

    const invalidator = new ApiKeyCacheInvalidator(redis, pino({ level: 'silent' }));
    await invalidator.invalidateTwice([hash], 100);
    expect(await redis.get(apiKeyCacheKey(hash))).toBeNull();

    // A gateway writing an old answer back right after the first DEL is undone by the second pass.
    await redis.set(apiKeyCacheKey(hash), '{"stale":true}', 'EX', 60);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await redis.get(apiKeyCacheKey(hash))).toBeNull();
    expect(heard).toEqual([hash, hash]);
    invalidator.stop();
  });
});
