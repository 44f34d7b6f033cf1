import type { KnownEvent } from '@chat/contracts';
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { decodeMessage } from './batchProcessor.js';
import { gatherAsked, loneMemberConsumerConfig } from './consumer.js';
import type { ConsumerGather } from './consumer.js';
import { whileBrokerStarts } from './eventWatch.js';
import { recordHeaders } from './recordSelector.js';
import { runFromOffsets } from './runFromOffsets.js';
import type { RecordHeaders } from './recordSelector.js';
import { Supervisor } from './supervisor.js';
import type { ConsumerHealth } from './supervisor.js';

/** One record of a partition as a broadcast consumer hands it on: decoded when selected, else null. */
export interface BroadcastRecord {
  offset: number;
  /** The producer's send time (epoch ms). */
  timestamp: number;
  /** Null for a record the selector skipped or that could not be decoded: it still moves the position. */
  event: KnownEvent | null;
}

export interface BroadcastConsumerOptions {
  /** The group of this one process (a unique id per start: nothing is shared with another member). */
  groupId: string;
  topics: readonly string[];
  /**
   * Where a partition starts: the offset a partition was left at by an earlier launch of this process
   * (a crashed consumer replaced), else the first record at or after `fromTimestamp` (epoch ms).
   */
  resumeAt(topic: string, partition: number): number | undefined;
  fromTimestamp(): number;
  /** Whether a record is decoded, from its headers (a record it cannot judge must be kept). */
  select(record: RecordHeaders): boolean;
  /** Called with every partition's start offset at each launch, before any batch. */
  onStart(starts: ReadonlyArray<{ topic: string; partition: number; offset: number }>): void;
  /**
   * A partition's records in order (synchronous: the next batch waits for it). `next` is the offset
   * after the last one.
   */
  onBatch(topic: string, partition: number, records: readonly BroadcastRecord[], next: number): void;
  logger: Logger;
  /**
   * The gather of ADR 0083 (a fetch after one that returned records waits for more), asked anew at
   * each such fetch: null answers at the first record. Lets a consumer gather only while nobody waits
   * on it (ADR 0086). Default: never gathers.
   */
  gather?: () => ConsumerGather | null;
}

/**
 * Every record of some topics, seen by this one process from a point in time (ADR 0069): the realtime
 * service's replicas each consume everything, so each can push to the connections it holds whatever
 * replica produced the event. Nothing is committed: a restart starts again from the time asked.
 */
export class BroadcastConsumer {
  private readonly supervisor: Supervisor;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: BroadcastConsumerOptions,
  ) {
    this.supervisor = new Supervisor({ name: options.groupId, logger: options.logger, launch: (crashed) => this.launch(crashed) });
  }

  health(): Readonly<ConsumerHealth> {
    return this.supervisor.health();
  }

  start(): Promise<void> {
    return this.supervisor.start();
  }

  stop(): Promise<void> {
    return this.supervisor.stop();
  }

  /** The high watermark of every partition of the topics now (what "caught up" is measured against). */
  async highWatermarks(): Promise<Array<{ topic: string; partition: number; offset: number }>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const marks: Array<{ topic: string; partition: number; offset: number }> = [];
      for (const topic of this.options.topics) {
        for (const p of await admin.fetchTopicOffsets(topic)) marks.push({ topic, partition: p.partition, offset: Number(p.high) });
      }
      return marks;
    } finally {
      await admin.disconnect();
    }
  }

  private async launch(crashed: (error: unknown) => void): Promise<{ stop(): Promise<void> }> {
    const consumer: Consumer = this.kafka.consumer({
      ...loneMemberConsumerConfig(this.options.groupId),
      ...(this.options.gather ? { busyFetch: gatherAsked(this.options.gather) } : {}),
    });
    return runFromOffsets(consumer, {
      topics: this.options.topics,
      starts: () => this.startOffsets(),
      onStart: (starts) => this.options.onStart(starts),
      logCrash: (error) => this.options.logger.error({ err: error }, `broadcast consumer ${this.options.groupId} crashed`),
      crashed,
      run: {
        autoCommit: false,
        partitionsConsumedConcurrently: 8,
        eachBatch: ({ batch }) => {
          const records: BroadcastRecord[] = [];
          for (const message of batch.messages) {
            const headers = recordHeaders(batch.topic, message);
            let event: KnownEvent | null = null;
            if (this.options.select(headers)) {
              const decoded = decodeMessage(message);
              if ('event' in decoded) event = decoded.event;
              else this.options.logger.warn({ topic: batch.topic, partition: batch.partition, offset: message.offset }, 'broadcast consumer skipped a record it cannot decode');
            }
            records.push({ offset: Number(message.offset), timestamp: headers.timestamp, event });
          }
          const last = batch.messages[batch.messages.length - 1];
          if (last) this.options.onBatch(batch.topic, batch.partition, records, Number(last.offset) + 1);
          return Promise.resolve();
        },
      },
    });
  }

  private startOffsets(): Promise<Array<{ topic: string; partition: number; offset: number }>> {
    return whileBrokerStarts(() => this.offsetsAtStart());
  }

  private async offsetsAtStart(): Promise<Array<{ topic: string; partition: number; offset: number }>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const from = this.options.fromTimestamp();
      const starts: Array<{ topic: string; partition: number; offset: number }> = [];
      for (const topic of this.options.topics) {
        const bounds = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p]));
        for (const { partition, offset } of await admin.fetchTopicOffsetsByTimestamp(topic, from)) {
          const resumed = this.options.resumeAt(topic, partition);
          // No record at or after the time: the partition starts at its end.
          const byTime = offset === '-1' ? Number(bounds.get(partition)?.high ?? 0) : Number(offset);
          starts.push({ topic, partition, offset: resumed ?? byTime });
        }
      }
      return starts;
    } finally {
      await admin.disconnect();
    }
  }
}
