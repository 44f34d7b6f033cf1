import type { KnownEvent, Topic } from '@chat/contracts';
import { EventConsumer, KafkaEventPublisher, consumerGroupFor, ensureTopics, startRelay } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { EventPublisher } from '@chat/eventsourcing';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';

export interface EventPipelineOptions {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  /** The topic this service owns and publishes to. */
  publishesTo: Topic;
  /** Topics whose events feed this service's read models (its own included, to heal after a crash). */
  consumes: readonly Topic[];
  /** Names the consumer group, together with the database it projects into. */
  consumerPurpose: string;
  /**
   * Applies a run of one partition's validated events, in order (`readModels.apply` of the service).
   * Throw `UnapplicableEventError` for an event that can never be applied; any other error is an
   * outage and the run is retried.
   */
  project(events: readonly KnownEvent[]): Promise<void>;
}

export interface EventPipeline {
  store: MongoCommitStore;
  /** Publishes to the service's topic; a failure also asks the relay to sweep soon. */
  publisher: EventPublisher;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The event plumbing every event-sourced service has: its commit store, its producer, the relay of
 * unpublished commits, and one batched consumer that feeds validated events to its projections.
 */
export function createEventPipeline(options: EventPipelineOptions): EventPipeline {
  const { db, kafka, logger } = options;
  const store = new MongoCommitStore(db);
  const producer = new KafkaEventPublisher(kafka, options.publishesTo);
  const consumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(options.consumerPurpose, db.databaseName),
    topics: options.consumes,
    logger,
    handler: (events) => options.project(events),
  });
  let relay: ReturnType<typeof startRelay> | null = null;
  const publisher: EventPublisher = {
    async publish(events) {
      try {
        await producer.publish(events);
      } catch (error) {
        relay?.requestSweep();
        throw error;
      }
    },
  };

  return {
    store,
    publisher,
    async start() {
      await store.ensureIndexes();
      await ensureTopics(kafka, [...new Set([options.publishesTo, ...options.consumes])]);
      await producer.connect();
      await consumer.start();
      relay = startRelay(store, publisher, logger);
    },
    async stop() {
      await relay?.stop();
      await consumer.stop();
      await producer.disconnect();
    },
  };
}
