import type { EventEnvelope } from '@chat/contracts';
import { applyInMemory } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { apiKeysProjection } from './apps/apiKeys.js';
import type { ApiKeyDocument } from './apps/apiKeys.js';
import { appsProjection } from './apps/apps.js';

let version = 0;
const envelope = (type: string, data: Record<string, unknown>): EventEnvelope => ({
  id: `e${++version}`,
  type,
  schemaVersion: 1,
  appId: 'a1',
  streamId: 'app:a1',
  version,
  occurredAt: '2026-01-01T00:00:00.000Z',
  actor: { keyId: 'k1', scope: 'fullAccess' },
  correlationId: 'c1',
  causationId: null,
  data,
});

const created = envelope('ApiKeyCreated', {
  keyId: 'k2',
  keyHash: 'h2',
  maskedKey: 'ab12…cd34',
  name: 'Auth Key',
  scope: 'authOnly',
  createdBy: 'app_system',
  createdAt: 100,
});
const updated = envelope('ApiKeyUpdated', { keyId: 'k2', keyHash: 'h2', name: 'Renamed', scope: 'fullAccess', updatedAt: 200 });
const deleted = envelope('ApiKeyDeleted', { keyId: 'k2', keyHash: 'h2', deletedAt: 300 });

/** The key's document after the events, through the real runtime (guard and fold) over memory. */
async function run(events: EventEnvelope[]): Promise<ApiKeyDocument | null> {
  const store = await applyInMemory(apiKeysProjection, events);
  return store.document<ApiKeyDocument>('h2') ?? null;
}

describe('apikeys projection', () => {
  it('keys documents by hash', async () => {
    const store = await applyInMemory(apiKeysProjection, [created]);
    expect(store.stored().map((doc) => doc._id)).toEqual(['h2']);
  });

  it('follows a key from creation through update to a tombstone', async () => {
    expect(await run([created])).toMatchObject({ appId: 'a1', keyId: 'k2', name: 'Auth Key', scope: 'authOnly', deleted: false });
    expect(await run([created, updated])).toMatchObject({ name: 'Renamed', scope: 'fullAccess', updatedAt: 200, deleted: false });
    expect(await run([created, updated, deleted])).toMatchObject({ deleted: true, deletedAt: 300 });
  });

  it('a redelivered creation cannot bring a deleted key back', async () => {
    expect(await run([created, updated, deleted, created])).toMatchObject({ deleted: true, deletedAt: 300 });
  });

  it('an app deletion tombstones every key it names, and a redelivered creation cannot revive them', async () => {
    const appDeleted = envelope('AppDeleted', { appId: 'a1', keyHashes: ['h2'], deletedAt: 400 });
    expect(await run([created, appDeleted])).toMatchObject({ deleted: true, deletedAt: 400 });
    expect(await run([created, appDeleted, created])).toMatchObject({ deleted: true });
  });

  it('ignores updates for a key it never saw', async () => {
    expect(await run([updated])).toBeNull();
  });

  it('does not handle other events', async () => {
    expect((await applyInMemory(apiKeysProjection, [envelope('AppCreated', { appId: 'a1' })])).stored()).toEqual([]);
  });
});

describe('apps projection', () => {
  it('builds the app document from AppCreated and keeps the first one', async () => {
    const event = envelope('AppCreated', { appId: 'a1', name: 'Demo', region: 'us', createdAt: 100 });
    const store = await applyInMemory(appsProjection, [event]);
    expect(store.snapshot()).toEqual(new Map([['a1', { appId: 'a1', name: 'Demo', region: 'us', createdAt: 100, settings: [], collaborators: [] }]]));
  });
});
