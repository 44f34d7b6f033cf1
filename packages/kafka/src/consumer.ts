import { setTimeout as sleep } from 'node:timers/promises';
import { deadLetterTopic, eventEnvelopeSchema } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Logger } from 'pino';

export type EventHandler = (event: EventEnvelope) => Promise<void>;

/**
 * A read model's consumer group is tied to the database it writes: two deployments (say `npm start`
 * and a test run) sharing one Kafka then each see every event, instead of splitting the partitions
 * and each missing half. Stable per deployment, so offsets survive restarts.
 */
export function consumerGroupFor(purpose: string, databaseName: string): string {
  return `${purpose}.${databaseName}`;
}

export interface EventConsumerOptions {
  groupId: string;
  topics: readonly string[];
  handler: EventHandler;
  logger: Logger;
  /** In-process attempts before a message is parked on the group's dead-letter topic. */
  maxAttempts?: number;
}

/**
 * Consumes envelopes in partition order. A message that is not a valid envelope, or whose handler
 * keeps failing, goes to `<group>.dlq` with the reason, so one poison message never stalls a
 * partition. Handlers must be idempotent: delivery is at-least-once.
 */
export class EventConsumer {
  private readonly consumer: Consumer;
  private readonly deadLetters: Producer;
  private readonly maxAttempts: number;

  constructor(
    kafka: Kafka,
    private readonly options: EventConsumerOptions,
  ) {
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 200,
      retry: { retries: 10 },
    });
    this.deadLetters = kafka.producer({ allowAutoTopicCreation: true });
    this.maxAttempts = options.maxAttempts ?? 6;
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
      eachMessage: async ({ topic, partition, message }) => {
        await this.process(topic, partition, message);
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.deadLetters.disconnect();
  }

  private async process(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    let envelope: EventEnvelope;
    try {
      envelope = eventEnvelopeSchema.parse(JSON.parse(message.value?.toString('utf8') ?? 'null'));
    } catch (error) {
      await this.deadLetter(topic, partition, message, `not an event envelope: ${String(error)}`);
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handler(envelope);
        return;
      } catch (error) {
        if (attempt >= this.maxAttempts) {
          await this.deadLetter(topic, partition, message, `handler failed ${attempt} times: ${String(error)}`);
          return;
        }
        this.options.logger.warn({ err: error, eventId: envelope.id, attempt }, 'event handler failed; retrying');
        await sleep(50 * 2 ** attempt);
      }
    }
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, reason: string): Promise<void> {
    this.options.logger.error({ topic, partition, offset: message.offset, reason }, 'event dead-lettered');
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
