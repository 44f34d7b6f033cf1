import { ApiError } from '@chat/contracts';
import { ListCursor } from '@chat/http';
import type { AppDocument } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import type { ManagementReadModels } from '../../adapters/readModels.js';
import type { ApiKeyDocument } from '../../projections/apps/apiKeys.js';
import { ManagementQueries } from './queries.js';

const APP: AppDocument = {
  appId: 'a1b2c3d4e5f60718',
  name: 'aged',
  region: 'us',
  createdAt: 1,
  settings: [],
  collaborators: [{ email: 'owner@example.com', role: 'admin', addedAt: 1 }],
};

/** Read models that count which reads a query made: the app by `_id`, or the keys of apps (a scan on FerretDB). */
function countingReadModels(apps: AppDocument[]) {
  const reads = { findApp: 0, liveKeys: 0 };
  const readModels = {
    findApp: (appId: string) => {
      reads.findApp += 1;
      return Promise.resolve(apps.find((a) => a.appId === appId) ?? null);
    },
    liveKeys: (appIds: readonly string[]) => {
      reads.liveKeys += 1;
      return Promise.resolve(appIds.map((appId) => ({ appId, keyId: 'k1' }) as ApiKeyDocument));
    },
    liveWebhooks: () => Promise.resolve([]),
    findWebhook: () => Promise.resolve(null),
  };
  return { reads, queries: new ManagementQueries(readModels as unknown as ManagementReadModels) };
}

describe('ManagementQueries: what only needs the app reads the app alone (ADR 0074)', () => {
  it('answers settings, collaborators and the existence checks of webhook routes without reading any keys', async () => {
    const { reads, queries } = countingReadModels([APP]);
    expect(await queries.settings(APP.appId)).toMatchObject({});
    expect(await queries.collaborators(APP.appId)).toEqual(APP.collaborators);
    expect((await queries.existingApp(APP.appId)).appId).toBe(APP.appId);
    await queries.listWebhooks(APP.appId, undefined, new ListCursor('webhooks', {}, undefined), 10);
    await expect(queries.getWebhook(APP.appId, 'missing')).rejects.toMatchObject({ code: 'ERR_WEBHOOK_NOT_FOUND' });
    expect(reads).toEqual({ findApp: 5, liveKeys: 0 });
  });

  it('still answers an app with its keys, and an unknown app with ERR_APP_NOT_FOUND before any key is read', async () => {
    const { reads, queries } = countingReadModels([APP]);
    const { app, keys } = await queries.getApp(APP.appId);
    expect(app.appId).toBe(APP.appId);
    expect(keys.map((k) => k.keyId)).toEqual(['k1']);
    expect(reads.liveKeys).toBe(1);
    for (const attempt of [() => queries.getApp('0000000000000000'), () => queries.settings('0000000000000000'), () => queries.existingApp('0000000000000000')]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'ERR_APP_NOT_FOUND' });
    }
    expect(reads.liveKeys).toBe(1);
  });
});
