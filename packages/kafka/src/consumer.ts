import { deadLetterTopic } from '@chat/contracts';
import type { Consumer, ConsumerConfig, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { BatchProcessor } from './batchProcessor.js';
import type { BatchHandler, ConsumerCounters } from './batchProcessor.js';
import { OffsetCommits } from './offsetCommits.js';
import type { CommittableOffset } from './offsetCommits.js';
import type { RecordSelector } from './recordSelector.js';
import { Supervisor } from './supervisor.js';
import type { ConsumerHealth } from './supervisor.js';

/**
 * How long the broker holds a fetch that finds nothing new (ADR 0047, 0058, 0100): it answers as soon
 * as a requested partition has a record, so the wait bounds only how often an idle consumer asks. With
 * one broker kafkajs fetches, applies every batch of the answer, then fetches again, so a fetch in
 * flight leaves out only a paused partition (an outage's backoff, then at most this long). ADR 0047's
 * addendum blamed a 1 s wait for slow role changes on two replicas; ADR 0058 measured the broker
 * answering at once and the same delays with 200 ms. kafkajs heartbeats between fetches, so an idle
 * member hears of a rebalance (a replica joining or leaving) within this long, and a stop waits for
 * the fetch in flight: 3 s keeps three heartbeats inside the 10 s session, and an idle shared group
 * sends a fetch and a heartbeat every 3 s instead of every second.
 */
export const IDLE_FETCH_WAIT_MS = 3_000;

/**
 * How often a group of one member (an event watch's or a broadcast consumer's: a group of its own per
 * process) sends a heartbeat (ADR 0087). Nobody else joins such a group, so there is no rebalance to
 * hear of: the heartbeat only keeps the member alive, within its 30 s session (six chances). A stack
 * runs five such members (four watches, realtime's broadcast), each heartbeating at every fetch once
 * a second had passed, idle or busy.
 */
export const LONE_MEMBER_HEARTBEAT_MS = 5_000;

/**
 * How long the broker holds an idle fetch of a group of one member (ADR 0100): as long as its heartbeat
 * interval, so an idle watch or broadcast consumer sends one fetch and one heartbeat every 5 s instead
 * of five fetches. A record ends the fetch at once, and such a member pauses no partition (the only
 * thing a long wait would delay, ADR 0047's addendum); what waits longer is its stop, by up to the
 * fetch in flight.
 */
export const LONE_MEMBER_IDLE_FETCH_WAIT_MS = LONE_MEMBER_HEARTBEAT_MS;

/** The kafkajs settings of a group of one member: a long session, rare heartbeats, a long idle fetch. */
export function loneMemberConsumerConfig(groupId: string): ConsumerConfig {
  return {
    groupId,
    sessionTimeout: 30_000,
    heartbeatInterval: LONE_MEMBER_HEARTBEAT_MS,
    // A record on a watched topic ends the fetch at once: a fence waits for records, not for the wait.
    maxWaitTimeInMs: LONE_MEMBER_IDLE_FETCH_WAIT_MS,
    // Never restarted by kafkajs itself: it would rejoin at the log's end, past records this process
    // has not seen (it commits nothing). Every crash goes to the supervisor (runFromOffsets.ts).
    retry: { restartOnFailure: () => Promise.resolve(false) },
  };
}

/**
 * The shortest time between two offset commits of a consumer (ADR 0058). kafkajs commits after every
 * partition's batch: under load that was about one commit per message per group, most of the broker's
 * CPU per message. A crash or a rebalance redelivers at most this long of applied runs, which the
 * projections apply idempotently.
 */
export const OFFSET_COMMIT_INTERVAL_MS = 500;

/**
 * Events per handler call of a rebuild of the messages read models from offset 0 (`chatctl rebuild
 * messages`, ADR 0147): each partition's fetched batch (at most kafkajs' 1 MB a partition, ≈1,100 message
 * events) goes to the read models in one call, so it becomes one insert command
 * (`REBUILD_DOCUMENTS_PER_INSERT`) instead of three runs of at most 500 events and an insert each. Live
 * consumers keep 500 (a run is what one handler call holds up), and so does a conversations rebuild: a
 * timeline carries the chunks one call seals only up to that many events (`SEALS_KEPT`, ADR 0048).
 */
export const REBUILD_EVENTS_PER_CALL = 10_000;

export function consumerGroupFor(purpose: string, databaseName: string): string {
  return `${purpose}.${databaseName}`;
}

/** A fetch's gathering while busy: bytes the broker waits for, and for how long at most. */
export interface ConsumerGather {
  minBytes: number;
  maxWaitMs: number;
}

/**
 * The gather of the groups that skip most records and whose readers tolerate tens of ms (calls,
 * webhooks, notifications; ADR 0083): at the send rates of issue 23 one fetch carries many records
 * instead of about one per produce, and no goal is closer than 500 ms (webhook and push p99) or 2 s (a
 * calls read's catch-up).
 */
export const TOLERANT_GATHER: ConsumerGather = { minBytes: 64 * 1024, maxWaitMs: 50 };

/**
 * The gather of a group nobody waits on within a second (ADR 0095): a calls read's catch-up (≤ 2 s), a
 * webhooks or notifications group while no app has anything configured for it. While records keep
 * coming it fetches about twice a second whatever the rate, instead of twenty times (`TOLERANT_GATHER`)
 * or once per produce; the first record after a quiet spell is still answered at once.
 */
export const PATIENT_GATHER: ConsumerGather = { minBytes: 1024 * 1024, maxWaitMs: 500 };

/**
 * kafkajs (patched, ADR 0083, 0109) reads `busyFetch`'s two fields at every fetch after one that
 * returned records: getters make that fetch follow `now()`, and without a gather it is an idle fetch
 * (answered at the first record).
 */
export function gatherAsked(now: () => ConsumerGather | null): { readonly minBytes: number; readonly maxWaitTimeInMs: number } {
  return {
    get minBytes() {
      return now()?.minBytes ?? 1;
    },
    get maxWaitTimeInMs() {
      return now()?.maxWaitMs ?? IDLE_FETCH_WAIT_MS;
    },
  };
}

export interface EventConsumerOptions {
  groupId: string;
  topics: readonly string[];
  /** Gets each partition's validated events in order, a run at a time. */
  handler: BatchHandler;
  logger: Logger;
  /** Events per handler call (default 500; a rebuild's `REBUILD_EVENTS_PER_CALL`). */
  maxEventsPerCall?: number;
  /**
   * Skips records the handler has no use for from their headers (type, appId), without decoding them;
   * their offsets are committed with the rest (ADR 0044). Default: every record is decoded.
   */
  select?: RecordSelector;
  /**
   * For a consumer where a few tens of ms of lag matter less than its cost per record (an audit trail,
   * a group that skips most records): while records keep coming (the last fetch returned some) the
   * broker holds each fetch until this many bytes are there or `maxWaitMs` has passed, so one fetch,
   * one decode pass and one handler call carry that long of records (ADR 0083). Only while they come
   * closer together than `maxWaitMs` (the last fetch gathered too, or was answered within it): records
   * further apart get an idle fetch each, not also a gathering one that comes back empty (ADR 0109).
   * A fetch after an empty one answers at the first record (idle, it waits `IDLE_FETCH_WAIT_MS`), so
   * the first record after a quiet spell is not delayed and an idle group polls no more often than one
   * without. A function is asked anew at each such fetch (null: answer at the first record), so a
   * group can gather more while nobody waits on it (ADR 0095). Default: every fetch answers at the
   * first record.
   */
  gather?: ConsumerGather | (() => ConsumerGather | null);
}

/**
 * Consumes envelopes in batches, one lane per partition (see `BatchProcessor` for what is retried and
 * what is dead-lettered). Offsets are committed only after the handler has applied the events.
 */
export class EventConsumer {
  private readonly deadLetters: Producer;
  private readonly processor: BatchProcessor;
  private readonly supervisor: Supervisor;
  private inGroup = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: EventConsumerOptions,
  ) {
    this.deadLetters = kafka.producer({ allowAutoTopicCreation: true });
    this.processor = new BatchProcessor({
      handler: options.handler,
      logger: options.logger,
      group: options.groupId,
      deadLetter: (topic, partition, message, reason) => this.deadLetter(topic, partition, message, reason),
      ...(options.maxEventsPerCall !== undefined ? { maxEventsPerCall: options.maxEventsPerCall } : {}),
      ...(options.select ? { select: options.select } : {}),
    });
    this.supervisor = new Supervisor({ name: options.groupId, logger: options.logger, launch: (crashed) => this.launch(crashed) });
  }

  /** Dead-lettered messages and retried outages since start (for a metric). */
  get counters(): Readonly<ConsumerCounters> {
    return this.processor.counters;
  }

  /**
   * Running, or crashed and being replaced (and how often that happened): what a readiness check
   * reports (not ready while `restarting`) and a metric counts.
   */
  health(): Readonly<ConsumerHealth> {
    return this.supervisor.health();
  }

  /** Whether this consumer is a member of its group right now (readiness). */
  get joined(): boolean {
    return this.inGroup;
  }

  get groupId(): string {
    return this.options.groupId;
  }

  get topics(): readonly string[] {
    return this.options.topics;
  }

  async start(): Promise<void> {
    await this.deadLetters.connect();
    await this.supervisor.start();
  }

  async stop(): Promise<void> {
    this.processor.stop();
    await this.supervisor.stop();
    await this.deadLetters.disconnect();
  }

  /** One kafkajs consumer of the group; a crash it does not restart from is reported to the supervisor. */
  private async launch(crashed: (error: unknown) => void): Promise<{ stop(): Promise<void> }> {
    const consumer: Consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      // A member killed -9 holds its partitions until its session ends, and a replacement's join
      // waits for that rebalance (30 s kept a restarted service from answering for 25 s). Runs send
      // heartbeats every second while they apply, so 10 s evicts only a member that is gone or frozen.
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: IDLE_FETCH_WAIT_MS,
      ...(this.options.gather ? { busyFetch: busyFetchOf(this.options.gather) } : {}),
      retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 10 },
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) crashed(payload.error);
    });
    const commits = new OffsetCommits({
      intervalMs: OFFSET_COMMIT_INTERVAL_MS,
      commit: (offsets) => consumer.commitOffsets([...offsets]),
      onError: (error) => this.options.logger.warn({ err: error, group: this.options.groupId }, 'offset commit failed; retried with the next one'),
    });
    // Readiness: a member that has not joined (or has crashed or left) applies nothing.
    const { GROUP_JOIN, CRASH, STOP, DISCONNECT, REBALANCING } = consumer.events;
    consumer.on(GROUP_JOIN, () => {
      this.inGroup = true;
      commits.forget();
      this.processor.joined();
    });
    // While the group waits for its members to rejoin, the old generation may still commit.
    consumer.on(REBALANCING, () => void commits.flush());
    for (const left of [CRASH, STOP, DISCONNECT]) consumer.on(left, () => (this.inGroup = false));
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...this.options.topics], fromBeginning: true });
      await consumer.run({
        // Commits are OffsetCommits' (kafkajs would commit after every batch, and again on a rebalance).
        autoCommit: false,
        // One lane per partition (four topics of three partitions fit): a burst on one topic's partitions,
        // say messages, must not hold up another's, say the user a send waits for. Order within a
        // partition is unchanged.
        partitionsConsumedConcurrently: 16,
        // Offsets are resolved by the processor, only once their events are applied.
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          try {
            await this.processor.process({
              topic: payload.batch.topic,
              partition: payload.batch.partition,
              messages: payload.batch.messages,
              highWatermark: payload.batch.highWatermark,
              resolveOffset: (offset) => payload.resolveOffset(offset),
              heartbeat: () => payload.heartbeat(),
              pause: () => payload.pause(),
              isActive: () => payload.isRunning() && !payload.isStale(),
            });
          } finally {
            // Also when a heartbeat in the batch heard of a rebalance: what was applied before it is
            // resolved, and the flush on REBALANCING that follows commits it.
            await commits.applied(payload.uncommittedOffsets(), (offsets) => payload.commitOffsetsIfNecessary({ topics: byTopic(offsets) }));
          }
        },
      });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return {
      stop: async () => {
        commits.stopping();
        await commits.flush();
        await consumer.disconnect();
      },
    };
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

function busyFetchOf(gather: ConsumerGather | (() => ConsumerGather | null)): { readonly minBytes: number; readonly maxWaitTimeInMs: number } {
  return typeof gather === 'function' ? gatherAsked(gather) : { minBytes: gather.minBytes, maxWaitTimeInMs: gather.maxWaitMs };
}

function byTopic(offsets: readonly CommittableOffset[]): Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }> {
  const topics = new Map<string, Array<{ partition: number; offset: string }>>();
  for (const { topic, partition, offset } of offsets) topics.set(topic, [...(topics.get(topic) ?? []), { partition, offset }]);
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}
