import { ApiError } from '@chat/contracts';
import type { ApiKeyIdentity, ApiKeyScope, AppLocation } from '@chat/contracts';
import { pageInMemory } from '@chat/http';
import type { KeyOrder, ListCursor } from '@chat/http';
import type { PagePosition } from '@chat/mongo';
import type { ManagementReadModels } from '../../adapters/readModels.js';
import type { ApiKeyDocument } from '../../projections/apps/apiKeys.js';
import type { AppDocument } from '../../projections/apps/apps.js';
import type { WebhookDocument } from '../../projections/webhooks/webhooks.js';
import { effectiveSettings } from '../../domain/apps/settings.js';
import type { SettingValue } from '../../domain/apps/settings.js';
import { keyNamedBy } from '../../domain/apps/apiKeys.js';
import { keyRefFromParam } from './keys.js';

export interface AppWithKeys {
  app: AppDocument;
  keys: ApiKeyDocument[];
}

/** `liveKeys`' order: newest first, then key id. */
const NEWEST_KEY_FIRST: KeyOrder = [-1, 1];
const OLDEST_FIRST: KeyOrder = [1, 1];

const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

export class ManagementQueries {
  constructor(private readonly readModels: ManagementReadModels) {}

  async listApps(searchKey: string | undefined, position: PagePosition, perPage: number) {
    const { apps, total, more, last } = await this.readModels.listApps(searchKey, position, perPage);
    const keys = await this.readModels.liveKeys(apps.map((a) => a.appId));
    const items: AppWithKeys[] = apps.map((app) => ({ app, keys: keys.filter((k) => k.appId === app.appId) }));
    return { items, total, more, last };
  }

  async getApp(appId: string): Promise<AppWithKeys> {
    const app = await this.existingApp(appId);
    return { app, keys: await this.readModels.liveKeys([appId]) };
  }

  /**
   * The app without its keys: one read by `_id`. Reading an app's keys filters the keys of every app
   * (a scan on FerretDB, ADR 0006) and grows with the platform (ADR 0074), so what only needs the app
   * (settings, collaborators, the check that it exists) reads this.
   */
  async existingApp(appId: string): Promise<AppDocument> {
    const app = await this.readModels.findApp(appId);
    if (!app) throw new ApiError('ERR_APP_NOT_FOUND', `The app ${appId} does not exist.`);
    return app;
  }

  /** Filtered in memory: an app has at most 25 live keys. */
  async listApiKeys(
    appId: string,
    filters: { scope?: ApiKeyScope | undefined; searchKey?: string | undefined },
    cursor: ListCursor,
    perPage: number,
  ): Promise<{ items: ApiKeyDocument[]; total: number; next: string | null }> {
    const needle = filters.searchKey?.toLowerCase();
    const matching = (await this.readModels.liveKeys([appId])).filter(
      (k) => (!filters.scope || k.scope === filters.scope) && (!needle || k.name.toLowerCase().includes(needle)),
    );
    const { items, next } = pageInMemory(matching, (k) => [k.createdAt, k.keyId], NEWEST_KEY_FIRST, cursor, perPage);
    return { items, total: matching.length, next };
  }

  /**
   * Another app's key is reported exactly like a missing one. `includeDeleted`: a revoked key too
   * (its audit trail outlives it).
   */
  async getApiKey(appId: string, keyParam: string, options: { includeDeleted?: boolean } = {}): Promise<ApiKeyDocument> {
    const ref = keyRefFromParam(keyParam);
    const live = !options.includeDeleted;
    const candidates = !ref
      ? []
      : 'maskedKey' in ref
        ? await (live ? this.readModels.liveKeys([appId]) : this.readModels.allKeys(appId))
        : [await (live ? this.readModels.findLiveKey(appId, ref.keyId) : this.readModels.findKey(appId, ref.keyId))];
    const key = ref ? keyNamedBy(candidates.filter((k) => k !== null), ref) : undefined;
    if (!key) {
      throw new ApiError('ERR_APIKEY_NOT_FOUND', 'The API key does not exist in this app.');
    }
    return key;
  }

  async identityByHash(keyHash: string): Promise<ApiKeyIdentity | null> {
    if (!KEY_HASH_PATTERN.test(keyHash)) return null;
    const key = await this.readModels.findLiveKeyByHash(keyHash);
    return key ? { appId: key.appId, keyId: key.keyId, scope: key.scope } : null;
  }

  async appLocation(appId: string): Promise<AppLocation | null> {
    const app = await this.readModels.findApp(appId);
    return app ? { appId: app.appId, region: app.region } : null;
  }

  async settings(appId: string): Promise<Record<string, SettingValue>> {
    return effectiveSettings((await this.existingApp(appId)).settings);
  }

  async collaborators(appId: string): Promise<AppDocument['collaborators']> {
    return (await this.existingApp(appId)).collaborators;
  }

  /** Webhooks of an existing app, oldest first, filtered by name or id (at most 25, so in memory). */
  async listWebhooks(
    appId: string,
    searchKey: string | undefined,
    cursor: ListCursor,
    perPage: number,
  ): Promise<{ items: WebhookDocument[]; total: number; next: string | null }> {
    await this.existingApp(appId);
    const needle = searchKey?.toLowerCase();
    const matching = (await this.readModels.liveWebhooks(appId)).filter(
      (w) => !needle || w.name.toLowerCase().includes(needle) || w.webhookId.toLowerCase().includes(needle),
    );
    const { items, next } = pageInMemory(matching, (w) => [w.createdAt, w.webhookId], OLDEST_FIRST, cursor, perPage);
    return { items, total: matching.length, next };
  }

  async getWebhook(appId: string, webhookId: string): Promise<WebhookDocument> {
    await this.existingApp(appId);
    const webhook = await this.readModels.findWebhook(appId, webhookId);
    if (!webhook) throw new ApiError('ERR_WEBHOOK_NOT_FOUND', `The webhook ${webhookId} does not exist.`);
    return webhook;
  }
}
