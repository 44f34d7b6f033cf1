import type { KnownEvent, Topic } from '@chat/contracts';
import { CommandRunner } from '@chat/eventsourcing';
import { recordProducedPositions } from '@chat/http';
import type { CommandRunnerOptions, OwnReadModels } from '@chat/eventsourcing';
import { EventConsumer, EventWatch, KafkaEventPublisher, consumerGroupFor, ensureTopics } from '@chat/kafka';
import type { ConsumerCounters, ConsumerHealth } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
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
  /** The read models a command's events reach before it answers (read-your-writes). */
  ownReadModels: OwnReadModels;
  /**
   * Events every replica must see itself (not shared out like the projection's), for in-memory state
   * such as cached read-model documents: its topics and what to do with each run of events.
   */
  watch?: { topics: readonly Topic[]; onEvents: (events: readonly KnownEvent[]) => void };
  /** Partitions of the topics this service creates if they do not exist yet (default 3). */
  topicPartitions?: number;
  /** Tuning of the command runner (tests shorten intervals). */
  runner?: Partial<Pick<CommandRunnerOptions, 'groupCommit' | 'outbox' | 'maxAttempts' | 'headSaveIntervalMs'>>;
}

export interface EventPipeline {
  store: MongoCommitStore;
  /** The one way this service changes state. */
  runner: CommandRunner;
  /** The projection consumer's state (running, or crashed and being replaced): for /readyz and a metric. */
  consumerHealth(): Readonly<ConsumerHealth>;
  /** The event watch's state, when the service has one (same meaning). */
  watchHealth(): Readonly<ConsumerHealth> | null;
  /** Events dead-lettered and outages retried by the projection consumer since start (metrics). */
  consumerCounters(): Readonly<ConsumerCounters>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The event plumbing every event-sourced service has: its commit store, the command runner with
 * its ordered outbox to the service's topic, and one batched consumer that feeds validated events to
 * its projections.
 */
export function createEventPipeline(options: EventPipelineOptions): EventPipeline {
  const { db, kafka, logger } = options;
  const store = new MongoCommitStore(db);
  const producer = new KafkaEventPublisher(kafka, options.publishesTo);
  const runner = new CommandRunner({
    store,
    publisher: producer,
    readModels: options.ownReadModels,
    logger,
    onCommitted: recordProducedPositions,
    ...options.runner,
  });
  const groupId = consumerGroupFor(options.consumerPurpose, db.databaseName);
  const consumer = new EventConsumer(kafka, {
    groupId,
    topics: options.consumes,
    logger,
    handler: (events) => options.project(events),
  });
  const watch = options.watch
    ? new EventWatch(kafka, { purpose: groupId, topics: options.watch.topics, startFromGroup: groupId, onEvents: options.watch.onEvents, logger })
    : null;

  return {
    store,
    runner,
    consumerHealth: () => consumer.health(),
    watchHealth: () => watch?.health() ?? null,
    consumerCounters: () => consumer.counters,
    async start() {
      await store.ensureIndexes();
      await ensureTopics(kafka, [...new Set([options.publishesTo, ...options.consumes])], options.topicPartitions);
      await producer.connect();
      // Before any new command: what a crashed predecessor appended reaches Kafka first, in order.
      await runner.start();
      // Before the projection moves on: the watch starts where the projection stands now.
      await watch?.start();
      await consumer.start();
    },
    async stop() {
      await runner.stop();
      await consumer.stop();
      await watch?.stop();
      await producer.disconnect();
    },
  };
}
