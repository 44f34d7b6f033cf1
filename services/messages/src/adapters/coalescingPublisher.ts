import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';
import { Coalescer } from './coalescer.js';

/**
 * The shared producer keeps one request in flight (idempotent, ordered), so concurrent sends would
 * queue for Kafka one by one. Commits published while a request is in flight go together in the
 * next one, in the order their publish calls came — which is their append order per stream.
 */
export class CoalescingPublisher implements EventPublisher {
  private readonly batches: Coalescer<readonly EventEnvelope[], void>;

  constructor(inner: EventPublisher) {
    this.batches = new Coalescer<readonly EventEnvelope[], void>(async (_key, commits) => {
      await inner.publish(commits.flat());
      return commits.map(() => undefined);
    });
  }

  publish(events: readonly EventEnvelope[]): Promise<void> {
    return this.batches.submit('all', events);
  }
}
