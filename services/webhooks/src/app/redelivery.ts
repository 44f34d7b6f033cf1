import { ApiError } from '@chat/contracts';
import type { DeliveryLog } from '../adapters/deliveryLog.js';
import type { WebhookReadModels } from '../adapters/readModels.js';
import type { DeliveryDocument } from '../domain/delivery.js';
import type { Deliveries } from './deliveries.js';
import type { QueuedDelivery } from '@chat/delivery';

/** How many finished deliveries one bulk redelivery requeues at most. */
export const MAX_BULK_REDELIVERIES = 1_000;

export interface RedeliveryDeps {
  readModels: WebhookReadModels;
  log: DeliveryLog;
  deliveries: Pick<Deliveries, 'requeue'>;
  enqueue(delivery: QueuedDelivery): void;
}

/** Our extension: the delivery log and redelivery, for a webhook the delivery process knows. */
export class Redelivery {
  constructor(private readonly deps: RedeliveryDeps) {}

  async requireWebhook(appId: string, webhookId: string) {
    const webhook = await this.deps.readModels.findWebhook(appId, webhookId);
    if (!webhook) throw new ApiError('ERR_WEBHOOK_NOT_FOUND', `The webhook ${webhookId} does not exist.`);
    return webhook;
  }

  /** Sends a finished delivery again, from attempt 1 of a new retry window; a pending one is already on its way. */
  async redeliver(appId: string, webhookId: string, deliveryId: string): Promise<DeliveryDocument> {
    await this.requireWebhook(appId, webhookId);
    const found = await this.deps.log.find(deliveryId);
    if (!found || found.document.appId !== appId || found.document.webhookId !== webhookId) {
      throw new ApiError('ERR_DELIVERY_NOT_FOUND', `The delivery ${deliveryId} does not exist for webhook ${webhookId}.`);
    }
    const requeued = await this.deps.deliveries.requeue(found);
    if (!requeued) return found.document;
    this.deps.enqueue(requeued.delivery);
    return requeued.document;
  }

  /** Every finished delivery queued at or after `fromQueuedAt` (epoch ms), oldest first, again. */
  async redeliverSince(appId: string, webhookId: string, fromQueuedAt: number): Promise<number> {
    await this.requireWebhook(appId, webhookId);
    const finished = await this.deps.readModels.finishedDeliveries(appId, webhookId, fromQueuedAt, MAX_BULK_REDELIVERIES);
    const requeued = await Promise.all(finished.map((d) => this.deps.deliveries.requeue(d)));
    // Handed over in queue order, so each conversation's deliveries go out in their order again.
    let count = 0;
    for (const r of requeued) {
      if (!r) continue;
      this.deps.enqueue(r.delivery);
      count += 1;
    }
    return count;
  }
}
