import { APP_WEBHOOKS_COLLECTION, appWebhooksIdList, webhookDocumentId } from '@chat/contracts';
import type { AppDocument, WebhookDocument } from '@chat/contracts';
import { ProjectedReadModels, appIdListProjection, appliedPositions, byScalarFields, ensureIndexes, findByAppIdLists, stripStoredFields } from '@chat/mongo';
import type { AppIdList, Stored } from '@chat/mongo';
import type { ConfigurationDocuments } from '@chat/runtime';
import type { Collection, Db, Filter } from 'mongodb';
import type { DeliveryDocument } from '../domain/delivery.js';
import { APPS_COLLECTION, WEBHOOKS_COLLECTION, appsProjection, webhooksProjection } from '../projections/configuration.js';
import { DELIVERIES_COLLECTION, storedDelivery } from './deliveryLog.js';
import type { StoredDelivery } from './deliveryLog.js';

/** The app's webhook ids (the spec both services share, ADR 0076). */
const appWebhooksProjection = appIdListProjection(appWebhooksIdList);

/**
 * The delivery log's queried fields as `DeliveryLog` writes them: always strings (never arrays), so the
 * FerretDB runner may read them through the log's indexes instead of decoding every app's deliveries
 * (a page took 12–13 s beside 50,000 other deliveries; ADR 0074's addendum).
 */
const WRITTEN_AS_STRINGS = { webhook: byScalarFields('webhookId', 'appId'), status: byScalarFields('status'), app: byScalarFields('appId') };

/**
 * The webhooks process's read models, in its own database: the apps and webhooks it delivers for
 * (projected from management's events with the folds management publishes in `@chat/contracts`), and the queries of its
 * delivery log (written by `DeliveryLog`).
 */
export class WebhookReadModels extends ProjectedReadModels {
  private readonly apps: Collection<Stored<AppDocument>>;
  private readonly webhooks: Collection<Stored<WebhookDocument>>;
  private readonly appWebhooks: Collection<Stored<AppIdList>>;
  private readonly deliveries: Collection<Stored<DeliveryDocument>>;

  constructor(db: Db) {
    super(db);
    this.apps = this.projected(APPS_COLLECTION, appsProjection);
    this.webhooks = this.projected(WEBHOOKS_COLLECTION, webhooksProjection);
    this.appWebhooks = this.projected(APP_WEBHOOKS_COLLECTION, appWebhooksProjection);
    this.deliveries = db.collection(DELIVERIES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, WEBHOOKS_COLLECTION, [{ keys: { appId: 1, createdAt: 1 }, options: { name: 'app_created' } }]);
    await ensureIndexes(this.db, DELIVERIES_COLLECTION, [
      { keys: { webhookId: 1, appId: 1, queuedAt: -1 }, options: { name: 'webhook_queued' } },
      { keys: { status: 1 }, options: { name: 'status' } },
    ]);
  }

  /** The documents an app's delivery configuration is loaded from (its app document and its webhooks). */
  configurationDocuments(): ConfigurationDocuments[] {
    return [
      { projection: appsProjection, positions: (ids) => appliedPositions(this.apps, ids) },
      { projection: webhooksProjection, positions: (ids) => appliedPositions(this.webhooks, ids) },
      { projection: appWebhooksProjection, positions: (ids) => appliedPositions(this.appWebhooks, ids) },
    ];
  }

  async findApp(appId: string): Promise<AppDocument | null> {
    const doc = await this.apps.findOne({ _id: appId });
    return doc ? stripStoredFields(doc) : null;
  }

  /**
   * The app's live webhooks, in creation order: its id list by `_id`, then the webhooks by `_id $in`
   * (ADR 0076). Only an app created before the list existed is read by `appId` (through `app_created`).
   */
  async liveWebhooks(appId: string): Promise<WebhookDocument[]> {
    const { found, unlisted } = await findByAppIdLists(this.appWebhooks, this.webhooks, [appId], webhookDocumentId);
    const docs = unlisted.length === 0 ? found.filter((d) => !d.deleted) : await this.webhooks.find({ appId, deleted: false, ...WRITTEN_AS_STRINGS.app }).toArray();
    return docs.map((d) => stripStoredFields<WebhookDocument>(d));
  }

  async findWebhook(appId: string, webhookId: string): Promise<WebhookDocument | null> {
    const doc = await this.webhooks.findOne({ _id: webhookDocumentId(appId, webhookId) });
    return doc && !doc.deleted ? stripStoredFields(doc) : null;
  }

  /** What a restarted process still has to deliver, in the order it was queued (through the `status` index). */
  async pendingDeliveries(): Promise<StoredDelivery[]> {
    const docs = await this.deliveries.find({ status: 'pending', ...WRITTEN_AS_STRINGS.status }).sort({ queuedAt: 1, sourceVersion: 1 }).toArray();
    return docs.map(storedDelivery);
  }

  /** A webhook's deliveries, newest first (through the `webhook_queued` index: the webhook's, not every app's). */
  async listDeliveries(
    appId: string,
    webhookId: string,
    filters: { status?: DeliveryDocument['status'] | undefined; fromQueuedAt?: number | undefined },
    page: { page: number; perPage: number },
  ): Promise<{ items: DeliveryDocument[]; total: number }> {
    const filter: Filter<Stored<DeliveryDocument>> = {
      webhookId,
      appId,
      ...WRITTEN_AS_STRINGS.webhook,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.fromQueuedAt !== undefined ? { queuedAt: { $gte: filters.fromQueuedAt } } : {}),
    };
    const [docs, total] = await Promise.all([
      this.deliveries
        .find(filter)
        .sort({ queuedAt: -1, sourceVersion: -1 })
        .skip((page.page - 1) * page.perPage)
        .limit(page.perPage)
        .toArray(),
      this.deliveries.countDocuments(filter),
    ]);
    return { items: docs.map((d) => storedDelivery(d).document), total };
  }

  /** A webhook's finished deliveries queued since `fromQueuedAt`, oldest first (bulk redelivery). */
  async finishedDeliveries(appId: string, webhookId: string, fromQueuedAt: number, limit: number): Promise<StoredDelivery[]> {
    const docs = await this.deliveries
      .find({ webhookId, appId, queuedAt: { $gte: fromQueuedAt }, status: { $ne: 'pending' }, ...WRITTEN_AS_STRINGS.webhook })
      .sort({ queuedAt: 1, sourceVersion: 1 })
      .limit(limit)
      .toArray();
    return docs.map(storedDelivery);
  }
}
