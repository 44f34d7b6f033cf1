import { APP_WEBHOOKS_COLLECTION, appWebhooksIdList } from '@chat/contracts';
import { ProjectedReadModels, appIdListProjection, byScalarFields, ensureIndexes, escapeRegex, findByAppIdLists, findPage, keysetKeyOf, stripStoredFields } from '@chat/mongo';
import type { KeysetOrder, PagePosition, Stored } from '@chat/mongo';
import type { Filter } from 'mongodb';
import { API_KEYS_COLLECTION, apiKeysProjection } from '../projections/apps/apiKeys.js';
import { APP_KEYS_COLLECTION, appKeysProjection } from '../projections/apps/appKeys.js';
import type { ApiKeyDocument } from '../projections/apps/apiKeys.js';
import { APPS_COLLECTION, appsProjection } from '../projections/apps/apps.js';
import type { AppDocument } from '../projections/apps/apps.js';
import { WEBHOOKS_COLLECTION, webhookDocumentId, webhooksProjection } from '../projections/webhooks/webhooks.js';
import type { WebhookDocument } from '../projections/webhooks/webhooks.js';

/** The app's webhook ids (the spec both services share, ADR 0076). */
const appWebhooksProjection = appIdListProjection(appWebhooksIdList);

/** Apps newest first; the id makes the key unique. */
const APP_ORDER: KeysetOrder = [
  ['createdAt', -1],
  ['_id', 1],
];

/**
 * An app created before the id lists (ADR 0076) is read by `appId`, a string in every key and webhook
 * document and the leading field of `app_key` and `app_created`: on FerretDB that read searches the
 * index instead of decoding every app's keys or webhooks.
 */
const BY_APP = byScalarFields('appId');

/** The management read models: how they are written (guarded, idempotent) and how they are read. */
export class ManagementReadModels extends ProjectedReadModels {
  private readonly apps = this.projected(APPS_COLLECTION, appsProjection);
  private readonly apiKeys = this.projected(API_KEYS_COLLECTION, apiKeysProjection);
  private readonly appKeys = this.projected(APP_KEYS_COLLECTION, appKeysProjection);
  private readonly webhooks = this.projected(WEBHOOKS_COLLECTION, webhooksProjection);
  private readonly appWebhooks = this.projected(APP_WEBHOOKS_COLLECTION, appWebhooksProjection);

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, APPS_COLLECTION, [{ keys: { createdAt: -1 }, options: { name: 'created' } }]);
    await ensureIndexes(this.db, API_KEYS_COLLECTION, [{ keys: { appId: 1, keyId: 1 }, options: { name: 'app_key' } }]);
    await ensureIndexes(this.db, WEBHOOKS_COLLECTION, [{ keys: { appId: 1, createdAt: 1 }, options: { name: 'app_created' } }]);
  }

  /** A deleted app is not found. */
  async findApp(appId: string): Promise<AppDocument | null> {
    const doc = await this.apps.findOne({ _id: appId });
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }

  async listApps(
    searchKey: string | undefined,
    position: PagePosition,
    perPage: number,
  ): Promise<{ apps: AppDocument[]; total: number; more: boolean; last: (string | number)[] | undefined }> {
    const live: Filter<Stored<AppDocument>> = { deleted: { $ne: true } };
    const filter: Filter<Stored<AppDocument>> = searchKey
      ? {
          ...live,
          $or: [
            { name: { $regex: escapeRegex(searchKey), $options: 'i' } },
            { appId: { $regex: escapeRegex(searchKey), $options: 'i' } },
          ],
        }
      : live;
    const { total, items, more } = await findPage(this.apps, filter, APP_ORDER, position, perPage);
    const last = items.at(-1);
    return { apps: items.map((d) => stripStoredFields<AppDocument>(d)), total, more, last: last ? keysetKeyOf(APP_ORDER, last) : undefined };
  }

  /** Live keys of the apps, newest first (CometChat's list order). At most 25 per app. */
  async liveKeys(appIds: readonly string[]): Promise<ApiKeyDocument[]> {
    return this.keysOf(appIds, { live: true });
  }

  async findLiveKey(appId: string, keyId: string): Promise<ApiKeyDocument | null> {
    return (await this.keysOf([appId], { live: true })).find((k) => k.keyId === keyId) ?? null;
  }

  /** A key live or revoked (a tombstone), by its id within the app. */
  async findKey(appId: string, keyId: string): Promise<ApiKeyDocument | null> {
    return (await this.keysOf([appId], { live: false })).find((k) => k.keyId === keyId) ?? null;
  }

  /** Every key the app ever had, revoked ones included, newest first. */
  async allKeys(appId: string): Promise<ApiKeyDocument[]> {
    return this.keysOf([appId], { live: false });
  }

  /**
   * The apps' keys, newest first: their hashes from each app's list by `_id`, the keys by `_id $in`
   * (ADR 0076); only apps created before the lists existed are read by `appId` (through `app_key`).
   */
  private async keysOf(appIds: readonly string[], { live }: { live: boolean }): Promise<ApiKeyDocument[]> {
    if (appIds.length === 0) return [];
    const { found, unlisted } = await findByAppIdLists(this.appKeys, this.apiKeys, appIds, (_appId, keyHash) => keyHash);
    // One equality read per unlisted app: the index serves string equalities, not `$in`.
    const older = (await Promise.all(unlisted.map((app) => this.apiKeys.find({ appId: app, ...(live ? { deleted: false } : {}), ...BY_APP }).toArray()))).flat();
    return [...found.filter((k) => !live || !k.deleted), ...older]
      .sort((a, b) => b.createdAt - a.createdAt || (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0))
      .map((d) => stripStoredFields<ApiKeyDocument>(d));
  }

  async findLiveKeyByHash(keyHash: string): Promise<ApiKeyDocument | null> {
    const doc = await this.apiKeys.findOne({ _id: keyHash, deleted: false });
    return doc ? stripStoredFields(doc) : null;
  }

  /** Live webhooks of an app, oldest first; at most 25 per app, so filtered and paged in memory. */
  async liveWebhooks(appId: string): Promise<WebhookDocument[]> {
    // By `_id` (ADR 0076); an app created before the id lists existed by `appId`, through its index.
    const { found, unlisted } = await findByAppIdLists(this.appWebhooks, this.webhooks, [appId], webhookDocumentId);
    const docs = unlisted.length === 0 ? found.filter((d) => !d.deleted) : await this.webhooks.find({ appId, deleted: false, ...BY_APP }).toArray();
    return docs
      .sort((a, b) => a.createdAt - b.createdAt || (a.webhookId < b.webhookId ? -1 : a.webhookId > b.webhookId ? 1 : 0))
      .map((d) => stripStoredFields<WebhookDocument>(d));
  }

  async findWebhook(appId: string, webhookId: string): Promise<WebhookDocument | null> {
    const doc = await this.webhooks.findOne({ _id: webhookDocumentId(appId, webhookId) });
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }
}
