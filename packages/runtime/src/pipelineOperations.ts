import { histogram, sampledGauge } from '@chat/http';
import type { Probes } from '@chat/http';
import type { CommandRunner } from '@chat/eventsourcing';
import { LagReader } from '@chat/kafka';
import type { EventConsumer, KafkaEventPublisher } from '@chat/kafka';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { ConfigurationDirectory } from './configurationDirectory.js';
import type { TopicFence } from './topicFence.js';

/** A scrape must not hang on a broker that is away: lag is left out of that scrape instead. */
const LAG_TIMEOUT_MS = 2_000;
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000];

export interface PipelineParts {
  db: Db;
  kafka: Kafka;
  runner: CommandRunner;
  producer: KafkaEventPublisher;
  consumer: EventConsumer;
  /** The topic the outbox publishes to. */
  topic: string;
}

/**
 * What a service's readiness waits for: its whole pipeline (store, producer, consumer), or its store
 * alone, for a service whose reads must go on while Kafka is away (management answers every chat
 * request's key look-up; ADR 0040).
 */
export type ReadinessGates = 'pipeline' | 'store';

/**
 * Readiness and metrics of one event pipeline, kept beside it rather than inside the runner, the
 * outbox and the consumer: those expose plain counters, and this module alone knows Prometheus.
 */
export class PipelineOperations {
  private readonly removals: Array<() => void> = [];
  private readonly lag: LagReader;
  private readonly batchSizes = histogram('projection_batch_events', 'Events handed to the projections in one batch, per consumer group.', ['group'], BATCH_BUCKETS);

  constructor(private readonly parts: PipelineParts) {
    this.lag = new LagReader(parts.kafka);
  }

  /**
   * Store reachable, producer connected, consumer group joined. `gates` says which of them take the
   * process out of rotation when they fail; the others are reported as degraded (`ReadinessGates`).
   */
  registerChecks(probes: Probes, gates: ReadinessGates = 'pipeline'): void {
    const { db, producer, consumer } = this.parts;
    const kafkaGates = { gatesReadiness: gates === 'pipeline' };
    probes.add('store', async () => (await db.command({ ping: 1 }))['ok'] === 1);
    probes.add('producer', () => producer.connected, kafkaGates);
    // Joined its group, and not crashed and waiting for its supervisor to replace it.
    probes.add('consumer', () => consumer.joined && consumer.health().state === 'running', kafkaGates);
  }

  /** The fence's rounds and give-ups, per consumer group (a stalled watch shows here). */
  registerFence(fence: TopicFence): void {
    const group = this.parts.consumer.groupId;
    this.removals.push(
      sampledGauge('configuration_fence_rounds', 'Watermark reads of the configuration fence since start, per consumer group.', ['group'], () => [
        { labels: { group }, value: fence.counters.rounds },
      ]),
      sampledGauge('configuration_fence_timeouts', 'Fence rounds that went on before the watch reached the watermarks (or could not read them) since start.', ['group'], () => [
        { labels: { group }, value: fence.counters.timeouts + fence.counters.unreadable },
      ]),
    );
  }

  /** Loads that went on before the read model showed a configuration event the watch had seen. */
  registerDirectory(directory: ConfigurationDirectory<unknown>): void {
    const group = this.parts.consumer.groupId;
    this.removals.push(
      sampledGauge('configuration_load_timeouts', 'Configuration loads that stopped waiting for the read model since start, per consumer group.', ['group'], () => [
        { labels: { group }, value: directory.counters.appliedTimeouts },
      ]),
    );
  }

  /** Called with every batch the consumer hands to the projections. */
  observeBatch(size: number): void {
    this.batchSizes.observe({ group: this.parts.consumer.groupId }, size);
  }

  start(): void {
    const { runner, consumer, topic } = this.parts;
    const group = consumer.groupId;
    this.removals.push(
      sampledGauge('relay_backlog_events', 'Appended events not yet known to be on Kafka, per topic.', ['topic'], () => [
        { labels: { topic }, value: runner.publishBacklog },
      ]),
      sampledGauge('consumer_dead_letters', 'Messages this process dead-lettered since it started, per consumer group.', ['group'], () => [
        { labels: { group }, value: consumer.counters.deadLettered },
      ]),
      sampledGauge('consumer_restarts', 'Times the consumer crashed and was replaced since start, per consumer group.', ['group'], () => [
        { labels: { group }, value: consumer.health().restarts },
      ]),
      sampledGauge('consumer_retried_failures', 'Projection runs retried after an outage since start, per consumer group.', ['group'], () => [
        { labels: { group }, value: consumer.counters.retriedFailures },
      ]),
      sampledGauge('consumer_skipped_records', 'Records skipped from their headers, undecoded, since start, per consumer group (ADR 0044).', ['group'], () => [
        { labels: { group }, value: consumer.counters.skipped },
      ]),
      sampledGauge('command_conflicts', 'Appends that lost a race with another process (each retried its turn) since start.', ['topic'], () => [
        { labels: { topic }, value: runner.counters.conflicts },
      ]),
      sampledGauge('command_conflicts_exhausted', 'Commands that answered ERR_CONCURRENT_MODIFICATION after every retry, since start.', ['topic'], () => [
        { labels: { topic }, value: runner.counters.exhausted },
      ]),
      sampledGauge('consumer_lag_messages', 'Messages a consumer group has not yet committed, per topic and partition.', ['group', 'topic', 'partition'], () =>
        this.sampleLag(),
      ),
    );
  }

  async stop(): Promise<void> {
    for (const remove of this.removals.splice(0)) remove();
    await this.lag.close();
  }

  private async sampleLag() {
    const { consumer } = this.parts;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lag measurement timed out')), LAG_TIMEOUT_MS);
    });
    try {
      const lags = await Promise.race([this.lag.measure(consumer.groupId, consumer.topics), timeout]);
      return lags.map(({ groupId, topic, partition, lag }) => ({ labels: { group: groupId, topic, partition: String(partition) }, value: lag }));
    } finally {
      clearTimeout(timer);
    }
  }
}

