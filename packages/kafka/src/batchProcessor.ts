import { eventEnvelopeSchema, eventHeaderNames, isUnapplicableEventError, parseKnownEvent } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { headerText } from './operatorTools.js';
import { withProcessSpans } from './tracing.js';

/** Applies a run of validated events, in partition order. Must be idempotent: delivery is at-least-once. */
/** How often a run in progress sends a heartbeat (kafkajs throttles them to its heartbeat interval). */
const HEARTBEAT_DURING_RUN_MS = 1_000;

export type BatchHandler = (events: readonly KnownEvent[]) => Promise<void>;

/** What a message says of itself in its headers (`KafkaEventPublisher` sets them), read without decoding it. */
export interface EventHeaders {
  type: string | undefined;
  appId: string | undefined;
  /** When it was produced (the Kafka message's timestamp, epoch ms): never before the event occurred. */
  producedAt: number;
}

/**
 * Which messages of a batch the handler does not need, judged from their headers alone (same order,
 * true = skip): a skipped message is never decoded, and its offset is resolved with the messages
 * around it. It may wait (for what decides it to be current); a rejection is an outage like the
 * handler's.
 */
export type EventSkip = (headers: readonly EventHeaders[]) => Promise<readonly boolean[]> | readonly boolean[];

export function eventHeadersOf(message: KafkaMessage): EventHeaders {
  return {
    type: headerText(message.headers, eventHeaderNames.type),
    appId: headerText(message.headers, eventHeaderNames.appId),
    producedAt: Number(message.timestamp),
  };
}

/** What one partition's batch offers the processor (kafkajs' `eachBatch` payload, narrowed for testing). */
export interface PartitionBatch {
  topic: string;
  partition: number;
  messages: readonly KafkaMessage[];
  /** Marks everything up to this offset done; unresolved messages are fetched again. */
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  /** False once the consumer stops or the partition was reassigned: stop without resolving. */
  isActive(): boolean;
  /** Stops fetching this partition; the returned function resumes it from the last resolved offset. */
  pause(): () => void;
}

export interface BatchProcessorOptions {
  handler: BatchHandler;
  /** Parks a message on the group's dead-letter topic. */
  deadLetter(topic: string, partition: number, message: KafkaMessage, reason: string): Promise<void>;
  logger: Logger;
  /** The consumer group, named on the process spans of traced events. */
  group?: string;
  /** Events per handler call: between calls the offsets are resolved and the group hears a heartbeat. */
  maxEventsPerCall?: number;
  /** Messages this group never needs decoded (by type, or by tenant): see `EventSkip`. */
  skip?: EventSkip;
  /** Pause before the n-th retry of a failing partition (n ≥ 1). */
  backoffMs?: (attempt: number) => number;
  /** Timers, replaceable in tests. */
  schedule?: (run: () => void, ms: number) => () => void;
}

export interface ConsumerCounters {
  /** Messages parked on the dead-letter topic (never applicable). */
  deadLettered: number;
  /** Handler failures treated as outages and retried. */
  retriedFailures: number;
}

/**
 * Exponential, capped at 2 s, with full jitter so replicas that failed together do not retry together.
 * The cap bounds how long after the store returns a paused partition moves again (the goal is 5 s); a
 * retry during the outage costs one failed call, so retrying that often is cheap.
 */
export function outageBackoffMs(attempt: number): number {
  const ceiling = Math.min(2_000, 100 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

class DeadLetterFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(`dead-letter topic unreachable: ${String(cause)}`);
  }
}

type Decoded = { message: KafkaMessage; event: KnownEvent } | { message: KafkaMessage; reason: string };

/** A message of a run: its event, or none when it was skipped unread (resolved with the run). */
type RunItem = { message: KafkaMessage; event?: KnownEvent };

/** A message as an event this group can apply, or why it never can be. */
export function decodeMessage(message: KafkaMessage): Decoded {
  let envelope;
  try {
    envelope = eventEnvelopeSchema.parse(JSON.parse(message.value?.toString('utf8') ?? 'null'));
  } catch (error) {
    return { message, reason: `not an event envelope: ${String(error)}` };
  }
  const event = parseKnownEvent(envelope);
  if (!event) {
    return { message, reason: `unknown type or invalid payload: ${envelope.type} v${envelope.schemaVersion}` };
  }
  return { message, event };
}

/**
 * The consumer's batch logic, one lane per partition. Valid events go to the handler in partition
 * order, a run at a time; offsets are resolved only after the handler succeeded.
 *
 * Outage ≠ poison. Only a message that can never be applied goes to the dead-letter topic: one that is
 * not an envelope, has an unknown type or version, or fails its schema, or an event the handler
 * reports as unapplicable. Any other failure (store unreachable, timeout, …) pauses the partition and
 * retries it with capped, jittered backoff until it succeeds; it never dead-letters a valid event.
 */
export class BatchProcessor {
  readonly counters: ConsumerCounters = { deadLettered: 0, retriedFailures: 0 };
  private readonly failures = new Map<string, number>();
  private readonly pendingResumes = new Set<() => void>();
  private readonly maxEventsPerCall: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly schedule: (run: () => void, ms: number) => () => void;

  constructor(private readonly options: BatchProcessorOptions) {
    this.maxEventsPerCall = options.maxEventsPerCall ?? 500;
    this.backoffMs = options.backoffMs ?? outageBackoffMs;
    this.schedule =
      options.schedule ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        return () => clearTimeout(timer);
      });
  }

  async process(batch: PartitionBatch): Promise<void> {
    const lane = `${batch.topic}:${batch.partition}`;
    try {
      await this.processLane(batch, lane);
    } catch (error) {
      // The dead-letter topic unreachable is an outage like any other: nothing past the failure is resolved.
      if (error instanceof DeadLetterFailure) this.pauseAfterFailure(batch, lane, error.cause);
      else throw error;
    }
  }

  private async processLane(batch: PartitionBatch, lane: string): Promise<void> {
    let skipped: readonly boolean[] | undefined;
    try {
      skipped = this.options.skip ? await this.options.skip(batch.messages.map(eventHeadersOf)) : undefined;
    } catch (error) {
      this.pauseAfterFailure(batch, lane, error);
      return;
    }
    let run: RunItem[] = [];
    for (const [index, message] of batch.messages.entries()) {
      const decoded: Decoded | RunItem = skipped?.[index] === true ? { message } : decodeMessage(message);
      if ('reason' in decoded) {
        if (!(await this.applyRun(batch, lane, run))) return;
        run = [];
        await this.deadLetter(batch, decoded.message, decoded.reason);
        batch.resolveOffset(decoded.message.offset);
        continue;
      }
      run.push(decoded);
      if (run.length >= this.maxEventsPerCall) {
        if (!(await this.applyRun(batch, lane, run))) return;
        run = [];
      }
    }
    await this.applyRun(batch, lane, run);
  }

  /**
   * Runs the handler while telling the group this member is alive: a run that takes longer than the
   * session timeout on a loaded store must not get the member evicted, which would rebalance the
   * group, redeliver the run to another member and stall every partition in a loop.
   */
  private async whileBeating<T>(batch: PartitionBatch, work: () => Promise<T>): Promise<T> {
    const timer = setInterval(() => {
      batch.heartbeat().catch(() => undefined);
    }, HEARTBEAT_DURING_RUN_MS);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  /** Stops pending retries (the consumer is stopping). */
  stop(): void {
    for (const cancel of this.pendingResumes) cancel();
    this.pendingResumes.clear();
  }

  /** True when the run was applied (or was empty, or all skipped); false when the partition was paused or lost. */
  private async applyRun(batch: PartitionBatch, lane: string, run: readonly RunItem[]): Promise<boolean> {
    let remaining = run.filter((item): item is Required<RunItem> => item.event !== undefined);
    while (remaining.length > 0) {
      if (!batch.isActive()) return false;
      try {
        const scope = { topic: batch.topic, partition: batch.partition, group: this.options.group };
        await this.whileBeating(batch, () =>
          withProcessSpans(
            scope,
            remaining.map((item) => item.message),
            () => this.options.handler(remaining.map((item) => item.event)),
          ),
        );
        break;
      } catch (error) {
        const culprit = isUnapplicableEventError(error) ? remaining.find((item) => item.event.id === error.eventId) : undefined;
        if (culprit) {
          // Poison: park it and apply the rest at once (what was applied before it is skipped by the guard).
          await this.deadLetter(batch, culprit.message, error instanceof Error ? error.message : String(error));
          remaining = remaining.filter((item) => item !== culprit);
          continue;
        }
        this.pauseAfterFailure(batch, lane, error);
        return false;
      }
    }
    this.failures.delete(lane);
    const last = run[run.length - 1];
    if (last) batch.resolveOffset(last.message.offset);
    await batch.heartbeat();
    return true;
  }

  private pauseAfterFailure(batch: PartitionBatch, lane: string, error: unknown): void {
    const attempt = (this.failures.get(lane) ?? 0) + 1;
    this.failures.set(lane, attempt);
    this.counters.retriedFailures += 1;
    const delayMs = this.backoffMs(attempt);
    this.options.logger.warn(
      { err: error, topic: batch.topic, partition: batch.partition, attempt, retryInMs: delayMs },
      'event handler failed; partition paused, will retry (not dead-lettered)',
    );
    const resume = batch.pause();
    const cancel = this.schedule(() => {
      this.pendingResumes.delete(cancel);
      resume();
    }, delayMs);
    this.pendingResumes.add(cancel);
  }

  private async deadLetter(batch: PartitionBatch, message: KafkaMessage, reason: string): Promise<void> {
    try {
      await this.options.deadLetter(batch.topic, batch.partition, message, reason);
    } catch (error) {
      throw new DeadLetterFailure(error);
    }
    this.options.logger.error({ topic: batch.topic, partition: batch.partition, offset: message.offset, reason }, 'event dead-lettered');
    this.counters.deadLettered += 1;
  }
}
