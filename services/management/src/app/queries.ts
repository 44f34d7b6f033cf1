import { ApiError } from '@chat/contracts';
import type { ApiKeyIdentity, ApiKeyScope, AppLocation } from '@chat/contracts';
import { pageInMemory } from '@chat/http';
import type { KeyOrder, ListCursor } from '@chat/http';
import type { PagePosition } from '@chat/mongo';
import type { ManagementReadModels } from '../adapters/readModels.js';
import type { ApiKeyDocument } from '../projections/apiKeys.js';
import type { AppDocument } from '../projections/apps.js';
import { keyNamedBy } from '../domain/app.js';
import { keyRefFromParam } from './keys.js';

export interface AppWithKeys {
  app: AppDocument;
  keys: ApiKeyDocument[];
}

/** `liveKeys`' order: newest first, then key id. */
const NEWEST_KEY_FIRST: KeyOrder = [-1, 1];

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
    const app = await this.readModels.findApp(appId);
    if (!app) throw new ApiError('ERR_APP_NOT_FOUND', `The app ${appId} does not exist.`);
    return { app, keys: await this.readModels.liveKeys([appId]) };
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

  /** Another app's key is reported exactly like a missing one. */
  async getApiKey(appId: string, keyParam: string): Promise<ApiKeyDocument> {
    const ref = keyRefFromParam(keyParam);
    const candidates = !ref ? [] : 'maskedKey' in ref ? await this.readModels.liveKeys([appId]) : [await this.readModels.findLiveKey(appId, ref.keyId)];
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
}
