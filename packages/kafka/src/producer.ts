import { eventHeaderNames } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';
import type { Context } from '@opentelemetry/api';
import type { Kafka, Producer } from 'kafkajs';
import { injectTraceHeaders, startSendSpans } from './tracing.js';

/**
 * The most record bytes one produce request carries. The broker refuses a partition's batch over its
 * `message.max.bytes` (1 MiB by default) with MESSAGE_TOO_LARGE, and the outbox retries a refused
 * produce in order for ever: one large commit (an action message per member of a 1,000-member add)
 * would stop every later event of the service, every tenant's. Half the default leaves room for the
 * batch's own framing.
 */
export const MAX_PRODUCE_BYTES = 512 * 1024;

interface OutgoingRecord {
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** A record's bytes on the wire, near enough: key, value, headers and a record's fixed overhead. */
function recordBytes(record: OutgoingRecord): number {
  let bytes = 64 + Buffer.byteLength(record.key) + Buffer.byteLength(record.value);
  for (const name in record.headers) bytes += name.length + Buffer.byteLength(record.headers[name]!);
  return bytes;
}

/** Consecutive runs of records of at most `maxBytes` each (a record larger than that goes alone). */
export function partsWithin<T extends OutgoingRecord>(records: readonly T[], maxBytes: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = recordBytes(record);
    if (part.length > 0 && bytes + size > maxBytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(record);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

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
      const category = event.type === 'MessageSent' ? event.data['category'] : undefined;
      if (typeof category === 'string') headers[eventHeaderNames.category] = category;
      const context = traced?.contexts[index];
      if (context) injectTraceHeaders(context, headers);
      return { key: event.streamId, value: JSON.stringify(event), headers };
    });
    try {
      // One after the other, so order holds; a failure part-way is retried whole by the outbox, and
      // what already went is delivered again (at least once, as after a crash).
      for (const part of partsWithin(messages, MAX_PRODUCE_BYTES)) await this.producer.send({ topic: this.topic, acks: -1, messages: part });
    } catch (error) {
      traced?.spans.end(error);
      throw error;
    }
    traced?.spans.end();
  }
}
