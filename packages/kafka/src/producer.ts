import { eventHeaderNames } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';
import type { Kafka, Producer } from 'kafkajs';

/**
 * Publishes a service's events to its one topic. Idempotent producer with acks from all replicas;
 * the key is the stream id, so one stream's events stay in one partition, in order.
 */
export class KafkaEventPublisher implements EventPublisher {
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly topic: string,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    await this.producer.send({
      topic: this.topic,
      acks: -1,
      messages: events.map((event) => ({
        key: event.streamId,
        value: JSON.stringify(event),
        headers: {
          [eventHeaderNames.type]: event.type,
          [eventHeaderNames.appId]: event.appId,
          [eventHeaderNames.schemaVersion]: String(event.schemaVersion),
        },
      })),
    });
  }
}
