import { deliveryEventTypes } from '@chat/contracts';
import type { DeliveryOutcome, EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const DELIVERIES_COLLECTION = 'deliveries';

/** The delivery log (our extension) and the pending work a restarted process resumes. */
export interface DeliveryDocument {
  appId: string;
  webhookId: string;
  deliveryId: string;
  trigger: string;
  eventId: string;
  orderKey: string;
  sourceVersion: number;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastOutcome?: DeliveryOutcome;
  responseCode?: number;
  error?: string;
  latencyMs?: number;
  responsePrefix?: string;
  occurredAt: number;
  queuedAt: number;
  lastAttemptAt?: number;
  deliveredAt?: number;
  nextAttemptAt?: number;
}

type DeliveryEvent = EventOf<(typeof deliveryEventTypes)[number]>;

/** One document per delivery (`_id` = delivery id), fed by its own stream. */
export const deliveriesProjection: Projection<DeliveryDocument, DeliveryEvent> = {
  name: DELIVERIES_COLLECTION,
  eventTypes: deliveryEventTypes,
  documentIds: (event) => [event.data.deliveryId],
  sourceOf: () => 'delivery',
  creates: (event) => event.type === 'DeliveryQueued',
  evolve: (document, event) => {
    switch (event.type) {
      case 'DeliveryQueued': {
        const d = event.data;
        return (
          document ?? {
            appId: d.appId,
            webhookId: d.webhookId,
            deliveryId: d.deliveryId,
            trigger: d.trigger,
            eventId: d.sourceEventId,
            orderKey: d.orderKey,
            sourceVersion: d.sourceVersion,
            body: d.body,
            status: 'pending',
            attempts: 0,
            occurredAt: d.occurredAt,
            queuedAt: d.queuedAt,
          }
        );
      }
      case 'DeliveryAttempted': {
        if (!document) return null;
        const a = event.data;
        // The last attempt's facts replace the previous one's.
        const rest = { ...document };
        delete rest.responseCode;
        delete rest.error;
        delete rest.nextAttemptAt;
        return {
          ...rest,
          status: a.outcome === 'delivered' ? 'delivered' : a.outcome === 'retrying' ? 'pending' : 'failed',
          attempts: a.attempt,
          lastOutcome: a.outcome,
          ...(a.statusCode !== undefined ? { responseCode: a.statusCode } : {}),
          ...(a.error !== undefined ? { error: a.error } : {}),
          latencyMs: a.latencyMs,
          responsePrefix: a.responsePrefix,
          lastAttemptAt: a.at,
          ...(a.outcome === 'delivered' ? { deliveredAt: a.at } : {}),
          ...(a.nextAttemptAt !== undefined ? { nextAttemptAt: a.nextAttemptAt } : {}),
        };
      }
      case 'DeliveryRequeued': {
        if (!document) return null;
        const rest = { ...document };
        delete rest.nextAttemptAt;
        return { ...rest, status: 'pending' };
      }
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
