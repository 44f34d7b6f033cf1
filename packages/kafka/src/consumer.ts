import { deadLetterTopic } from '@chat/contracts';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { BatchProcessor } from './batchProcessor.js';
import type { BatchHandler, ConsumerCounters } from './batchProcessor.js';

export function consumerGroupFor(purpose: string, databaseName: string): string {
  return `${purpose}.${databaseName}`;
}

export interface EventConsumerOptions {
  groupId: string;
  topics: readonly string[];
  /** Gets each partition's validated events in order, a run at a time. */
  handler: BatchHandler;
  logger: Logger;
  /** Events per handler call (default 1,000). */
  maxEventsPerCall?: number;
}

/**
 * Consumes envelopes in batches, one lane per partition (see `BatchProcessor` for what is retried and
 * what is dead-lettered). Offsets are committed only after the handler has applied the events.
 */
export class EventConsumer {
  private readonly consumer: Consumer;
  private readonly deadLetters: Producer;
  private readonly processor: BatchProcessor;

  constructor(
    kafka: Kafka,
    private readonly options: EventConsumerOptions,
  ) {
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      // Generous: a member evicted for a slow run rebalances the whole group (runs also heartbeat).
      sessionTimeout: 30_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 200,
      retry: { retries: 10 },
    });
    this.deadLetters = kafka.producer({ allowAutoTopicCreation: true });
    this.processor = new BatchProcessor({
      handler: options.handler,
      logger: options.logger,
      deadLetter: (topic, partition, message, reason) => this.deadLetter(topic, partition, message, reason),
      ...(options.maxEventsPerCall !== undefined ? { maxEventsPerCall: options.maxEventsPerCall } : {}),
    });
  }

  /** Dead-lettered messages and retried outages since start (for a metric). */
  get counters(): Readonly<ConsumerCounters> {
    return this.processor.counters;
  }

  async start(): Promise<void> {
    await this.deadLetters.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.options.topics], fromBeginning: true });
    await this.consumer.run({
      // One lane per partition (four topics of three partitions fit): a burst on one topic's partitions,
      // say messages, must not hold up another's, say the user a send waits for. Order within a
      // partition is unchanged.
      partitionsConsumedConcurrently: 16,
      // Offsets are resolved by the processor, only once their events are applied.
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        await this.processor.process({
          topic: payload.batch.topic,
          partition: payload.batch.partition,
          messages: payload.batch.messages,
          resolveOffset: (offset) => payload.resolveOffset(offset),
          heartbeat: () => payload.heartbeat(),
          pause: () => payload.pause(),
          isActive: () => payload.isRunning() && !payload.isStale(),
        });
        await payload.commitOffsetsIfNecessary();
      },
    });
  }

  async stop(): Promise<void> {
    this.processor.stop();
    await this.consumer.disconnect();
    await this.deadLetters.disconnect();
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, reason: string): Promise<void> {
    await this.deadLetters.send({
      topic: deadLetterTopic(this.options.groupId),
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            'dlq.reason': reason,
            'dlq.topic': topic,
            'dlq.partition': String(partition),
            'dlq.offset': message.offset,
          },
        },
      ],
    });
  }
}
