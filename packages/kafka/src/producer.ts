import { eventHeaderNames } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { EventPublisher } from '@chat/eventsourcing';
import type { Context } from '@opentelemetry/api';
import { Partitioners } from 'kafkajs';
import type { ICustomPartitioner, Kafka, Producer } from 'kafkajs';
import { packImportedUsers } from './eventPacking.js';
import { injectTraceHeaders, startSendSpans } from './tracing.js';

/**
 * The most record bytes one produce request carries. The broker refuses a partition's batch over its
 * `message.max.bytes` (1 MiB by default) with MESSAGE_TOO_LARGE, and the outbox retries a refused
 * produce in order for ever: one large commit (an action message per member of a 1,000-member add)
 * would stop every later event of the service, every tenant's. Half the default leaves room for the
 * batch's own framing.
 */
export const MAX_PRODUCE_BYTES = 512 * 1024;

/**
 * The most bytes a pack of imported users (ADR 0111) may have: the broker refuses a record over its
 * `message.max.bytes` whatever the request size, so a pack of users with large metadata (an import
 * body may hold 2 MB) goes as its events, one record each, instead.
 */
export const MAX_PACK_BYTES = 256 * 1024;

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
  /** kafkajs' default partitioner (murmur2 of the key), the one every record of ours goes through. */
  private readonly keyPartitioner = Partitioners.DefaultPartitioner();
  /** The topic's partition count as the partitioner last saw it (0: nothing sent yet, nothing packed). */
  private partitionCount = 0;
  /** The default partitioner, noting the partition count it is given (for packs, ADR 0111). */
  private readonly partitioner: ICustomPartitioner = () => (args) => {
    if (args.topic === this.topic) this.partitionCount = args.partitionMetadata.length;
    return this.keyPartitioner(args);
  };

  constructor(
    kafka: Kafka,
    private readonly topic: string,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: this.partitioner });
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
    const messages = this.unitsOf(events).flatMap(({ event, members, packedType }) => {
      const value = JSON.stringify(event);
      // A pack over the bound goes as its events, one record each, at its place (its partition's order holds).
      if (packedType !== undefined && Buffer.byteLength(value) > MAX_PACK_BYTES) return members.map((index) => this.recordOf(events[index]!, traced?.contexts[index]));
      return [this.recordOf(event, traced?.contexts[members[0]!], value, packedType)];
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

  /** A record of one event or of a pack (which carries its first event's trace context: the request that imported them). */
  private recordOf(event: EventEnvelope, context: Context | undefined, value = JSON.stringify(event), packedType?: string): OutgoingRecord {
    const headers: Record<string, string> = {
      [eventHeaderNames.type]: event.type,
      [eventHeaderNames.appId]: event.appId,
      [eventHeaderNames.schemaVersion]: String(event.schemaVersion),
      [eventHeaderNames.keyId]: event.actor.keyId,
    };
    if (packedType !== undefined) headers[eventHeaderNames.packedType] = packedType;
    const category = event.type === 'MessageSent' ? event.data['category'] : undefined;
    if (typeof category === 'string') headers[eventHeaderNames.category] = category;
    if (context) injectTraceHeaders(context, headers);
    return { key: event.streamId, value, headers };
  }

  /**
   * The records of a publish: imported users packed per partition (ADR 0111) once the partition count
   * is known (after the first send), every other event alone.
   */
  private unitsOf(events: readonly EventEnvelope[]): Array<{ event: EventEnvelope; members: readonly number[]; packedType?: string }> {
    const count = this.partitionCount;
    if (count === 0) return events.map((event, index) => ({ event, members: [index] }));
    const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [], isr: [] }));
    return packImportedUsers(events, (key) => this.keyPartitioner({ topic: this.topic, partitionMetadata, message: { key, value: null } }));
  }
}
