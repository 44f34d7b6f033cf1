import { specFor } from '@chat/eventsourcing';
import { describe, it } from 'vitest';
import { deliveryDecider } from './delivery.js';
import type { DeliveryEvent } from './delivery.js';

const spec = specFor(deliveryDecider);
const delivery = {
  appId: 'a1',
  webhookId: 'w1',
  deliveryId: 'd1',
  trigger: 'message_sent',
  sourceEventId: 'e1',
  orderKey: 'messages:a1:x_user_y',
  sourceVersion: 3,
  body: '{}',
  occurredAt: 1_000,
  queuedAt: 1_010,
};
const queued: DeliveryEvent = { type: 'DeliveryQueued', data: delivery };
const attempt = (n: number, outcome: 'delivered' | 'retrying' | 'failed') => ({
  attempt: n,
  outcome,
  statusCode: outcome === 'delivered' ? 200 : 500,
  latencyMs: 5,
  responsePrefix: 'ok',
  at: 2_000 + n,
});
const attempted = (n: number, outcome: 'delivered' | 'retrying' | 'failed'): DeliveryEvent => ({
  type: 'DeliveryAttempted',
  data: { appId: 'a1', webhookId: 'w1', deliveryId: 'd1', ...attempt(n, outcome) },
});

describe('delivery decider', () => {
  it('queues a delivery once, whatever Kafka redelivers', () => {
    spec.given([]).when({ type: 'Queue', delivery }).then([queued]);
    spec.given([queued]).when({ type: 'Queue', delivery }).thenNothingHappens();
  });

  it('records each attempt once, in sequence', () => {
    spec.given([queued]).when({ type: 'RecordAttempt', attempt: attempt(1, 'retrying') }).then([attempted(1, 'retrying')]);
    spec.given([queued, attempted(1, 'retrying')]).when({ type: 'RecordAttempt', attempt: attempt(1, 'retrying') }).thenNothingHappens();
    spec.given([queued, attempted(1, 'delivered')]).when({ type: 'RecordAttempt', attempt: attempt(2, 'delivered') }).thenNothingHappens();
  });

  it('stores a first attempt that succeeded before its delivery was stored as queued and delivered at once', () => {
    const { attempt: _number, ...first } = attempt(1, 'delivered');
    void _number;
    spec.given([]).when({ type: 'QueueDelivered', delivery, attempt: first }).then([queued, attempted(1, 'delivered')]);
    // Its source event came again after it was queued (a restart): an ordinary attempt record.
    spec
      .given([queued, attempted(1, 'retrying')])
      .when({ type: 'QueueDelivered', delivery, attempt: { ...first, at: 2_002 } })
      .then([attempted(2, 'delivered')]);
    spec.given([queued, attempted(1, 'delivered')]).when({ type: 'QueueDelivered', delivery, attempt: first }).thenNothingHappens();
  });

  it('requeues only a finished delivery', () => {
    spec.given([queued]).when({ type: 'Requeue', at: 3_000 }).thenNothingHappens();
    spec
      .given([queued, attempted(1, 'failed')])
      .when({ type: 'Requeue', at: 3_000 })
      .then([{ type: 'DeliveryRequeued', data: { appId: 'a1', webhookId: 'w1', deliveryId: 'd1', at: 3_000 } }]);
    spec.given([]).when({ type: 'Requeue', at: 3_000 }).thenNothingHappens();
  });
});
