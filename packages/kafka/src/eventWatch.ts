import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KnownEvent } from '@chat/contracts';
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { decodeMessage } from './batchProcessor.js';
import { loneMemberConsumerConfig } from './consumer.js';
import { recordHeaders } from './recordSelector.js';
import { runFromOffsets } from './runFromOffsets.js';
import type { RecordHeaders } from './recordSelector.js';
import { Supervisor } from './supervisor.js';
import type { ConsumerHealth } from './supervisor.js';

export interface EventWatchOptions {
  /** Names the watch's private consumer group (a unique suffix is added per process). */
  purpose: string;
  topics: readonly string[];
  /**
   * The consumer group whose progress the watch starts from: events that group had not applied when
   * this process started are seen too.
   */
  startFromGroup: string;
  /**
   * A topic whose events another group applies (not `startFromGroup`): the watch starts that topic from
   * this group's progress instead.
   */
  startFromGroupOf?: Readonly<Record<string, string>>;
  /** Gets every valid event, in partition order; must not throw (it is in-memory bookkeeping). */
  onEvents(events: readonly KnownEvent[]): void;
  /**
   * Whether `onEvents` needs a record, judged from its headers (false: not decoded; progress still
   * counts it). A record it cannot judge (a header missing) must be kept. Default: every record.
   */
  select?(record: RecordHeaders): boolean;
  /**
   * The next offset the watch will read in a partition: every message before it has been handed to
   * `onEvents` (or was applied by the projection group before the watch started there). Called at each
   * launch with the start offsets, then after every batch; a fence compares it with the high watermarks.
   */
  onProgress?(progress: PartitionProgress): void;
  logger: Logger;
}

/**
 * Whether an admin call failed as a broker that has just started fails: kafkajs's retriable errors
 * ("coordinator loading"), and no group coordinator found yet, which kafkajs reports as not retriable
 * once its own few retries are spent.
 */
export function brokerStillStarting(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { retriable, name } = error as { retriable?: unknown; name?: unknown };
  return retriable === true || name === 'KafkaJSGroupCoordinatorNotFound';
}

/** `read`, retried while the broker is still starting (`brokerStillStarting`) for up to a minute, as kafkajs's consumers do. */
export async function whileBrokerStarts<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!brokerStillStarting(error) || Date.now() > deadline) throw error;
      await sleep(Math.min(100 * attempt, 1_000));
    }
  }
}

export interface PartitionProgress {
  topic: string;
  partition: number;
  /** The offset of the next message to read. */
  next: number;
}

/**
 * Every event of some topics, seen by this one process (a consumer group of its own that commits
 * nothing), for in-memory state each replica keeps current, such as forgetting cached documents an
 * event changes. Unlike the projection consumer, no event is shared out to another replica.
 */
export class EventWatch {
  private readonly supervisor: Supervisor;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: EventWatchOptions,
  ) {
    // A crashed watch is replaced like a crashed consumer: it starts again from where the projection
    // group stands, so it sees again whatever it may have missed (forgetting twice is harmless).
    this.supervisor = new Supervisor({ name: `${options.purpose}.watch`, logger: options.logger, launch: (crashed) => this.launch(crashed) });
  }

  /** Running, or crashed and being replaced: for a readiness check. */
  health(): Readonly<ConsumerHealth> {
    return this.supervisor.health();
  }

  start(): Promise<void> {
    return this.supervisor.start();
  }

  stop(): Promise<void> {
    return this.supervisor.stop();
  }

  private async launch(crashed: (error: unknown) => void): Promise<{ stop(): Promise<void> }> {
    const consumer: Consumer = this.kafka.consumer(loneMemberConsumerConfig(`${this.options.purpose}.watch.${randomUUID()}`));
    return runFromOffsets(consumer, {
      topics: this.options.topics,
      starts: () => this.startOffsets(),
      // Where the watch starts counts as seen: no record before it will be delivered.
      onStart: (starts) => {
        for (const { topic, partition, offset } of starts) this.options.onProgress?.({ topic, partition, next: Number(offset) });
      },
      logCrash: (error) => this.options.logger.error({ err: error }, `event watch ${this.options.purpose} crashed`),
      crashed,
      run: {
        autoCommit: false,
        partitionsConsumedConcurrently: 4,
        eachBatch: ({ batch }) => {
          const events: KnownEvent[] = [];
          for (const message of batch.messages) {
            if (this.options.select && !this.options.select(recordHeaders(batch.topic, message))) continue;
            const decoded = decodeMessage(message);
            if ('event' in decoded) events.push(decoded.event);
          }
          if (events.length > 0) this.options.onEvents(events);
          const last = batch.messages[batch.messages.length - 1];
          if (last) this.options.onProgress?.({ topic: batch.topic, partition: batch.partition, next: Number(last.offset) + 1 });
          return Promise.resolve();
        },
      },
    });
  }

  /**
   * Per partition, the first offset the projection group had not committed (the log's start if none).
   * A broker that has just started (`brokerStillStarting`) is retried, as kafkajs's consumers do, for
   * up to a minute.
   */
  private startOffsets(): Promise<Array<{ topic: string; partition: number; offset: string }>> {
    return whileBrokerStarts(() => this.committedOffsets());
  }

  private async committedOffsets(): Promise<Array<{ topic: string; partition: number; offset: string }>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const byGroup = new Map<string, string[]>();
      for (const topic of this.options.topics) {
        const group = this.options.startFromGroupOf?.[topic] ?? this.options.startFromGroup;
        byGroup.set(group, [...(byGroup.get(group) ?? []), topic]);
      }
      const committed = [];
      for (const [groupId, topics] of byGroup) committed.push(...(await admin.fetchOffsets({ groupId, topics })));
      const starts: Array<{ topic: string; partition: number; offset: string }> = [];
      for (const { topic, partitions } of committed) {
        const bounds = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p]));
        for (const { partition, offset } of partitions) {
          const low = bounds.get(partition)?.low ?? '0';
          starts.push({ topic, partition, offset: offset === '-1' || BigInt(offset) < BigInt(low) ? low : offset });
        }
      }
      return starts;
    } finally {
      await admin.disconnect();
    }
  }
}
