import { eventHeaderNames } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';
import type { Context } from '@opentelemetry/api';
import type { Kafka, Producer } from 'kafkajs';
import { injectTraceHeaders, startSendSpans } from './tracing.js';

/**
 * Publishes a service's events to its one topic. Idempotent producer with acks from all replicas;
 * the key is the stream id, so one stream's events stay in one partition, in order.
 */
export class KafkaEventPublisher implements EventPublisher {
  private readonly producer: Producer;
  private isConnected = false;

  constructor(
    kafka: Kafka,
    private readonly topic: string,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    // kafkajs reconnects by itself; these events tell readiness whether it currently holds a connection.
    this.producer.on(this.producer.events.CONNECT, () => (this.isConnected = true));
    this.producer.on(this.producer.events.DISCONNECT, () => (this.isConnected = false));
  }

  /** Whether the producer holds a broker connection (readiness). */
  get connected(): boolean {
    return this.isConnected;
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  async publish(events: readonly EventEnvelope[], origins?: readonly (Context | undefined)[]): Promise<void> {
    if (events.length === 0) return;
    // Traced events get a producer span per source and its context in their headers (ADR 0032).
    const traced = origins ? startSendSpans(this.topic, origins) : undefined;
    const messages = events.map((event, index) => {
      const headers: Record<string, string> = {
        [eventHeaderNames.type]: event.type,
        [eventHeaderNames.appId]: event.appId,
        [eventHeaderNames.schemaVersion]: String(event.schemaVersion),
        [eventHeaderNames.keyId]: event.actor.keyId,
      };
      const context = traced?.contexts[index];
      if (context) injectTraceHeaders(context, headers);
      return { key: event.streamId, value: JSON.stringify(event), headers };
    });
    try {
      await this.producer.send({ topic: this.topic, acks: -1, messages });
    } catch (error) {
      traced?.spans.end(error);
      throw error;
    }
    traced?.spans.end();
  }
}
