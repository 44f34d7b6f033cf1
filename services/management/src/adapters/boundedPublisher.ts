import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';

/**
 * The command path waits for Kafka at most `timeoutMs`. The Kafka client retries for tens of seconds
 * when the broker is down, and everything after the append (the response, and the cache invalidation
 * that revokes a key) would wait with it. A commit not acknowledged in time stays unpublished and the
 * relay sends it; if the original send also lands, consumers de-duplicate as with any redelivery.
 */
export class BoundedPublisher implements EventPublisher {
  constructor(
    private readonly inner: EventPublisher,
    private readonly timeoutMs: number,
  ) {}

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const sent = this.inner.publish(events);
    sent.catch(() => undefined); // once we stopped waiting, a late failure is the relay's business
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka did not acknowledge within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([sent, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
