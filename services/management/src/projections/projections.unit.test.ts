import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { apiKeysProjection } from './apiKeys.js';
import type { ApiKeyDocument } from './apiKeys.js';
import { appsProjection } from './apps.js';

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

function run(events: EventEnvelope[]): ApiKeyDocument | null {
  let doc: ApiKeyDocument | null = null;
  for (const event of events) {
    if (apiKeysProjection.canHandle(event)) doc = apiKeysProjection.evolve(doc, event, 'h2');
  }
  return doc;
}

describe('apikeys projection', () => {
  it('keys documents by hash', () => {
    expect(apiKeysProjection.canHandle(created) && apiKeysProjection.documentIds(created)).toEqual(['h2']);
  });

  it('follows a key from creation through update to a tombstone', () => {
    expect(run([created])).toMatchObject({ appId: 'a1', keyId: 'k2', name: 'Auth Key', scope: 'authOnly', deleted: false });
    expect(run([created, updated])).toMatchObject({ name: 'Renamed', scope: 'fullAccess', updatedAt: 200, deleted: false });
    expect(run([created, updated, deleted])).toMatchObject({ deleted: true, deletedAt: 300 });
  });

  it('ignores updates for a key it never saw', () => {
    expect(run([updated])).toBeNull();
  });

  it('does not handle other events', () => {
    expect(apiKeysProjection.canHandle(envelope('AppCreated', {}))).toBe(false);
  });
});

describe('apps projection', () => {
  it('builds the app document from AppCreated and keeps the first one', () => {
    const event = envelope('AppCreated', { appId: 'a1', name: 'Demo', region: 'us', createdAt: 100 });
    expect(appsProjection.canHandle(event)).toBe(true);
    if (!appsProjection.canHandle(event)) return;
    const doc = appsProjection.evolve(null, event, 'a1');
    expect(doc).toEqual({ appId: 'a1', name: 'Demo', region: 'us', createdAt: 100 });
    expect(appsProjection.documentIds(event)).toEqual(['a1']);
  });
});
