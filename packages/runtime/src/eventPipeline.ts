import type { EventEnvelope, KnownEvent, Topic } from '@chat/contracts';
import type { Probes } from '@chat/http';
import { CommandRunner } from '@chat/eventsourcing';
import { recordProducedPositions } from '@chat/http';
import type { CommandRunnerOptions, OwnReadModels } from '@chat/eventsourcing';
import { EventConsumer, EventWatch, KafkaEventPublisher, LagReader, consumerGroupFor, ensureTopics } from '@chat/kafka';
import type { ConsumerCounters, ConsumerGather, ConsumerHealth, HandedRun, RecordHeaders, RecordSelector } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { TopicSettings } from './config.js';
import { PipelineOperations } from './pipelineOperations.js';
import type { ReadinessGates } from './pipelineOperations.js';
import { ConfigurationDirectory } from './configurationDirectory.js';
import type { ConfigurationDirectoryOptions } from './configurationDirectory.js';
import { TopicFence } from './topicFence.js';

/**
 * How long a fence waits for the watch before its callers go on (with a log line and a metric): far
 * longer than the watch takes to read what is on the topics, short enough not to stall deliveries.
 */
export const CONFIGURATION_FENCE_TIMEOUT_MS = 2_000;

/**
 * How often `watchCurrentAsOf` asks the fence for a new round while it is being read: one watermark
 * read (a Kafka admin call, no store command) per second at most, whatever the request rate.
 */
export const WATCH_CURRENCY_REFRESH_MS = 1_000;

/**
 * The least time between two fence rounds (`TopicFence`'s `minRoundSpacingMs`, ADR 0068): at most 10
 * watermark reads a second per process under any load, for at most this much more wait per fenced
 * caller (a webhook or push decision; the goals allow 500 ms).
 */
export const FENCE_ROUND_SPACING_MS = 100;

/**
 * How long a data import's events wait in the outbox for the next requests' before their produce
 * (ADR 0159): a few requests' users or messages per produce, so each of the topic's readers fetches,
 * decodes and commits a few large batches instead of one per request. Nothing else waits; an import's
 * answer never waited for Kafka.
 */
export const IMPORT_PUBLISH_LINGER_MS = 250;

/** An event of a data import (`imported: true`): history, which no reader acts on at once. */
export function isImportedEvent(event: EventEnvelope): boolean {
  return event.data['imported'] === true;
}

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
   * outage and the run is retried. `run.mayRepeat` false: no member was handed these events before (ADR 0062).
   */
  project(events: readonly KnownEvent[], run: HandedRun): Promise<void>;
  /**
   * Skips, from their headers (type, appId) and undecoded, the consumed records `project` has no use
   * for (ADR 0044); their offsets are committed all the same. Default: `project` gets every event.
   */
  select?: RecordSelector;
  /**
   * While records keep coming, the projection's fetches wait this long for fuller batches (ADR 0083);
   * for a group whose readers tolerate tens of ms; a function is asked anew at each such fetch (ADR
   * 0095). Default: every fetch answers at the first record.
   */
  gather?: ConsumerGather | (() => ConsumerGather | null);
  /** The read models a command's events reach before it answers (read-your-writes). */
  ownReadModels: OwnReadModels;
  /**
   * Events every replica must see itself (not shared out like the projection's), for in-memory state
   * such as cached read-model documents: its topics and what to do with each run of events.
   */
  watch?: {
    topics: readonly Topic[];
    onEvents: (events: readonly KnownEvent[]) => void;
    select?: (record: RecordHeaders) => boolean;
    /** A watched topic the projection does not consume: the group whose progress the watch starts it from. */
    startFromGroupOf?: Readonly<Partial<Record<Topic, string>>>;
  };
  /**
   * The longest a fence on the watched topics waits for the watch (`EventPipeline.fence`), and a
   * configuration load for the read model; default `CONFIGURATION_FENCE_TIMEOUT_MS`.
   */
  fenceTimeoutMs?: number | undefined;
  /** Where the pipeline registers its readiness checks (store, producer, consumer); runService passes it. */
  probes?: Probes;
  /** Which of those checks gate readiness (default: all of them). */
  readinessGates?: ReadinessGates;
  /** Partitions and replication of the topics it creates (default 3 and 1); runService passes the configured ones. */
  topicSettings?: TopicSettings;
  /** Tuning of the command runner (tests shorten intervals). */
  runner?: Partial<Pick<CommandRunnerOptions, 'groupCommit' | 'outbox' | 'maxAttempts' | 'headSaveIntervalMs'>>;
}

export interface EventPipeline {
  store: MongoCommitStore;
  /** The one way this service changes state. */
  runner: CommandRunner;
  /** The projection consumer's state (running, or crashed and being replaced): for /readyz and a metric. */
  consumerHealth(): Readonly<ConsumerHealth>;
  /**
   * When the service has a watch: waits until the watch has seen everything that was on its topics at
   * a given time (a `ConfigurationDirectory` passes it before trusting what it keeps).
   */
  fence: TopicFence | null;
  /**
   * An app-configuration cache fenced against the watched topics (its `observe` belongs in the watch's
   * `onEvents`). Only for a pipeline with a watch.
   */
  configurationDirectory<T>(options: Pick<ConfigurationDirectoryOptions<T>, 'load' | 'documents'>): ConfigurationDirectory<T>;
  /**
   * The time up to which this process's watch has seen every event on its topics (-Infinity without a
   * watch), for in-memory documents the watch keeps current (`DocumentMemory`'s `watchCurrentAsOf`).
   * Reading it starts a fence round in the background when the last one is older than
   * `WATCH_CURRENCY_REFRESH_MS`; it never waits.
   */
  watchCurrentAsOf(): number;
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
    outbox: { bulk: { isBulk: isImportedEvent, lingerMs: IMPORT_PUBLISH_LINGER_MS }, ...options.runner?.outbox },
  });
  const groupId = consumerGroupFor(options.consumerPurpose, db.databaseName);
  const consumer = new EventConsumer(kafka, {
    groupId,
    topics: options.consumes,
    logger,
    handler: (events, run) => {
      operations.observeBatch(events.length);
      return options.project(events, run);
    },
    ...(options.select ? { select: options.select } : {}),
    ...(options.gather ? { gather: options.gather } : {}),
  });
  const operations = new PipelineOperations({ db, kafka, runner, producer, consumer, topic: options.publishesTo });
  if (options.probes) operations.registerChecks(options.probes, options.readinessGates);
  const watched = options.watch;
  // The fence's watermark reads keep one admin connection of their own (a round must not wait for a scrape's).
  const watermarks = watched ? new LagReader(kafka) : null;
  const fence =
    watched && watermarks
      ? new TopicFence({
          readWatermarks: () => watermarks.highWatermarks(watched.topics),
          timeoutMs: options.fenceTimeoutMs ?? CONFIGURATION_FENCE_TIMEOUT_MS,
          minRoundSpacingMs: FENCE_ROUND_SPACING_MS,
          onGiveUp: (reason, detail) => logger.warn({ reason, detail, topics: watched.topics }, 'watch fence gave up waiting (configuration caches and in-memory facts go on with what the watch has seen)'),
        })
      : null;
  const watch = watched
    ? new EventWatch(kafka, {
        purpose: groupId,
        topics: watched.topics,
        startFromGroup: groupId,
        ...(watched.startFromGroupOf ? { startFromGroupOf: watched.startFromGroupOf } : {}),
        onEvents: watched.onEvents,
        ...(watched.select ? { select: watched.select } : {}),
        onProgress: (progress) => fence?.advance(progress),
        logger,
      })
    : null;

  let refreshing = false;
  const watchCurrentAsOf = (): number => {
    if (!fence) return Number.NEGATIVE_INFINITY;
    const now = Date.now();
    if (!refreshing && now - fence.currentAsOf >= WATCH_CURRENCY_REFRESH_MS) {
      refreshing = true;
      // A round never rejects: a watch that is behind or a broker away just leaves currentAsOf where it was.
      void fence.pass(now).finally(() => {
        refreshing = false;
      });
    }
    return fence.currentAsOf;
  };

  return {
    store,
    runner,
    fence,
    watchCurrentAsOf,
    configurationDirectory<T>(directoryOptions: Pick<ConfigurationDirectoryOptions<T>, 'load' | 'documents'>) {
      if (!fence) throw new Error('a configuration directory needs the pipeline to watch its configuration topics');
      const directory = new ConfigurationDirectory<T>({
        ...directoryOptions,
        fence,
        appliedTimeoutMs: options.fenceTimeoutMs ?? CONFIGURATION_FENCE_TIMEOUT_MS,
        onAppliedTimeout: (appId, waitedFor) =>
          logger.warn({ appId, waitedFor }, 'configuration loaded before the read model showed an event the watch saw; going on with it'),
      });
      // Metrics only where a directory uses the fence (the users and messages watches have none).
      operations.registerFence(fence);
      operations.registerDirectory(directory);
      return directory;
    },
    consumerHealth: () => consumer.health(),
    watchHealth: () => watch?.health() ?? null,
    consumerCounters: () => consumer.counters,
    async start() {
      await store.ensureIndexes();
      await ensureTopics(kafka, [...new Set([options.publishesTo, ...options.consumes])], options.topicSettings);
      await producer.connect();
      // Before any new command: what a crashed predecessor appended reaches Kafka first, in order.
      await runner.start();
      // Before the projection moves on: the watch starts where the projection stands now.
      await watch?.start();
      await consumer.start();
      operations.start();
    },
    async stop() {
      await runner.stop();
      await consumer.stop();
      await watch?.stop();
      await producer.disconnect();
      await operations.stop();
      await watermarks?.close();
    },
  };
}
