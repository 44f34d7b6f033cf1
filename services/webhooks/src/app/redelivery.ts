import { ApiError } from '@chat/contracts';
import type { CommandRunner } from '@chat/eventsourcing';
import type { WebhookReadModels } from '../adapters/readModels.js';
import { deliveryDecider, deliveryStreamId } from '../domain/delivery.js';
import type { DeliveryDocument } from '../projections/deliveries.js';
import type { QueuedDelivery } from './dispatcher.js';

/** How many finished deliveries one bulk redelivery requeues at most. */
export const MAX_BULK_REDELIVERIES = 1_000;

export interface RedeliveryDeps {
  runner: CommandRunner;
  readModels: WebhookReadModels;
  enqueue(delivery: QueuedDelivery): void;
  clock?: () => number;
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
  async redeliver(appId: string, webhookId: string, deliveryId: string, correlationId: string): Promise<DeliveryDocument> {
    await this.requireWebhook(appId, webhookId);
    const delivery = await this.deps.readModels.findDelivery(deliveryId);
    if (!delivery || delivery.appId !== appId || delivery.webhookId !== webhookId) {
      throw new ApiError('ERR_DELIVERY_NOT_FOUND', `The delivery ${deliveryId} does not exist for webhook ${webhookId}.`);
    }
    await this.requeue(delivery, correlationId);
    return (await this.deps.readModels.findDelivery(deliveryId)) ?? delivery;
  }

  /** Every finished delivery queued at or after `fromQueuedAt` (epoch ms), oldest first, again. */
  async redeliverSince(appId: string, webhookId: string, fromQueuedAt: number, correlationId: string): Promise<number> {
    await this.requireWebhook(appId, webhookId);
    const ids = await this.deps.readModels.finishedDeliveryIds(appId, webhookId, fromQueuedAt, MAX_BULK_REDELIVERIES);
    const deliveries = (await Promise.all(ids.map((id) => this.deps.readModels.findDelivery(id)))).filter((d) => d !== null);
    const requeued = await Promise.all(deliveries.map((d) => this.requeue(d, correlationId, false)));
    // Handed over in queue order, so each conversation's deliveries go out in their order again.
    deliveries.forEach((d, i) => {
      if (requeued[i]) this.deps.enqueue(queuedOf(d));
    });
    return requeued.filter(Boolean).length;
  }

  private async requeue(delivery: DeliveryDocument, correlationId: string, enqueue = true): Promise<boolean> {
    const now = (this.deps.clock ?? Date.now)();
    const result = await this.deps.runner.run({
      decider: deliveryDecider,
      streamId: deliveryStreamId(delivery.appId, delivery.deliveryId),
      command: { type: 'Requeue', at: now },
      metadata: { appId: delivery.appId, actor: { appId: delivery.appId, keyId: 'management', scope: 'management' }, correlationId, now: new Date(now) },
    });
    if (result.events.length === 0) return false;
    if (enqueue) this.deps.enqueue(queuedOf(delivery));
    return true;
  }
}

export function queuedOf(d: DeliveryDocument): QueuedDelivery {
  return {
    deliveryId: d.deliveryId,
    appId: d.appId,
    webhookId: d.webhookId,
    orderKey: d.orderKey,
    body: d.body,
    notBefore: d.status === 'pending' ? (d.nextAttemptAt ?? 0) : 0,
  };
}
