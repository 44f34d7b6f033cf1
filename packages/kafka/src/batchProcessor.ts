import { eventEnvelopeSchema, isUnapplicableEventError, parseKnownEvent } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { recordHeaders } from './recordSelector.js';
import type { RecordSelector } from './recordSelector.js';
import { RepeatWindow } from './repeatWindow.js';
import { withProcessSpans } from './tracing.js';

/** Applies a run of validated events, in partition order. Must be idempotent: delivery is at-least-once. */
/** How often a run in progress sends a heartbeat (kafkajs throttles them to its heartbeat interval). */
const HEARTBEAT_DURING_RUN_MS = 1_000;

/** What the consumer knows of a run it hands over. */
export interface HandedRun {
  /**
   * False only when no record of the run can have been handed to any member before (ADR 0062): a
   * handler may then skip its check against repeats. True is the safe answer when unsure.
   */
  mayRepeat: boolean;
}

export type BatchHandler = (events: readonly KnownEvent[], run: HandedRun) => Promise<void>;

/** What one partition's batch offers the processor (kafkajs' `eachBatch` payload, narrowed for testing). */
export interface PartitionBatch {
  topic: string;
  partition: number;
  messages: readonly KafkaMessage[];
  /** The partition's high watermark when the batch was fetched; unknown: every record may be a repeat. */
  highWatermark?: string;
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
  /** Skips, from their headers and undecoded, the records the handler has no use for (ADR 0044). */
  select?: RecordSelector;
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
  /** Records the selector skipped undecoded. */
  skipped: number;
}

/**
 * The platform's retry delay (`backoffDelay`) with equal jitter: the store or broker is away, so each
 * retry waits at least half its ceiling, and replicas that failed together do not retry together. The
 * ceiling doubles from 200 ms and stops at 2 s, which bounds how long after the store returns a paused
 * partition moves again (the goal is 5 s); a retry during the outage costs one failed call, so retrying
 * that often is cheap.
 */
const OUTAGE_BACKOFF: Backoff = { baseMs: 200, maxMs: 2_000, jitter: 'equal' };

export function outageBackoffMs(attempt: number): number {
  return backoffDelay(attempt, OUTAGE_BACKOFF);
}

class DeadLetterFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(`dead-letter topic unreachable: ${String(cause)}`);
  }
}

type Decoded = { message: KafkaMessage; event: KnownEvent } | { message: KafkaMessage; reason: string };

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
  readonly counters: ConsumerCounters = { deadLettered: 0, retriedFailures: 0, skipped: 0 };
  private readonly failures = new Map<string, number>();
  private readonly pendingResumes = new Set<() => void>();
  private readonly maxEventsPerCall: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly schedule: (run: () => void, ms: number) => () => void;
  private readonly repeats = new RepeatWindow();

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

  /** The member (re)joined its group: which records may be repeats is measured afresh. */
  joined(): void {
    this.repeats.joined();
  }

  async process(batch: PartitionBatch): Promise<void> {
    const lane = `${batch.topic}:${batch.partition}`;
    this.repeats.fetched(batch.topic, batch.partition, batch.highWatermark);
    try {
      await this.processLane(batch, lane);
    } catch (error) {
      // The dead-letter topic unreachable is an outage like any other: nothing past the failure is resolved.
      if (error instanceof DeadLetterFailure) this.pauseAfterFailure(batch, lane, error.cause);
      else throw error;
    }
  }

  private async processLane(batch: PartitionBatch, lane: string): Promise<void> {
    const kept = await this.selected(batch, lane);
    if (!kept) return;
    let run: Array<{ message: KafkaMessage; event: KnownEvent }> = [];
    for (const [index, message] of batch.messages.entries()) {
      if (!kept[index]) continue;
      const decoded = decodeMessage(message);
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
    if (!(await this.applyRun(batch, lane, run))) return;
    // Skipped records after the last applied one are done too (those before it were resolved with it).
    const last = batch.messages[batch.messages.length - 1];
    if (last && !kept[batch.messages.length - 1] && batch.isActive()) {
      batch.resolveOffset(last.offset);
      await batch.heartbeat();
    }
  }

  /** Per message, whether the handler gets it; null when the selector failed (the partition is paused). */
  private async selected(batch: PartitionBatch, lane: string): Promise<readonly boolean[] | null> {
    const select = this.options.select;
    if (!select) return batch.messages.map(() => true);
    let kept: readonly boolean[];
    try {
      kept = await this.whileBeating(batch, async () => select(batch.messages.map((message) => recordHeaders(batch.topic, message))));
    } catch (error) {
      this.pauseAfterFailure(batch, lane, error);
      return null;
    }
    if (kept.length !== batch.messages.length) throw new Error(`record selector answered ${kept.length} of ${batch.messages.length} records`);
    this.counters.skipped += kept.filter((k) => !k).length;
    return kept;
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

  /** True when the run was applied (or was empty); false when the partition was paused or lost. */
  private async applyRun(batch: PartitionBatch, lane: string, run: Array<{ message: KafkaMessage; event: KnownEvent }>): Promise<boolean> {
    let remaining = run;
    while (remaining.length > 0) {
      if (!batch.isActive()) return false;
      try {
        const scope = { topic: batch.topic, partition: batch.partition, group: this.options.group };
        await this.whileBeating(batch, () =>
          withProcessSpans(
            scope,
            remaining.map((item) => item.message),
            () =>
              this.options.handler(
                remaining.map((item) => item.event),
                { mayRepeat: this.repeats.handing(batch.topic, batch.partition, remaining[0]!.message.offset, remaining[remaining.length - 1]!.message.offset) },
              ),
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
