import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope } from '@chat/contracts';
import { backoffDelay } from './backoff.js';
import type { Backoff } from './backoff.js';
import type { Commit, CommitStore, EventPublisher } from './store.js';

export interface OutboxLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface OutboxOptions {
  /** Events kept in memory while Kafka is slow or down; past this they are re-read from the store. */
  maxBufferedEvents?: number;
  /** How often the publish journal is trimmed to what is on Kafka (one delete for many batches). */
  releaseIntervalMs?: number;
  retry?: Backoff;
  /** Events per produce request. */
  maxEventsPerPublish?: number;
}

interface Pending {
  lastPosition: number;
  events: EventEnvelope[];
}

/**
 * Publishes appended commits to Kafka in position order, so every stream's events reach Kafka in
 * version order even across failures: a failed produce is retried (backoff with jitter) and nothing
 * after it goes first. The store's publish journal is the checkpoint: it names every batch appended
 * and not yet released, so after a crash `recover()` republishes whatever may be missing (consumers
 * de-duplicate on stream and version). One trim of the journal stands for many batches, where a
 * mark per commit would cost an update each.
 */
export class Outbox {
  private readonly queue: Pending[] = [];
  private buffered = 0;
  /** Kafka fell so far behind that new batches are read back from the journal instead of buffered. */
  private catchingUp = false;
  private lastAppended = 0;
  private publishedThrough = 0;
  private releasedThrough = 0;
  private draining: Promise<void> | null = null;
  private releaseTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly maxBufferedEvents: number;
  private readonly releaseIntervalMs: number;
  private readonly retry: Backoff;
  private readonly maxEventsPerPublish: number;

  constructor(
    private readonly store: CommitStore,
    private readonly publisher: EventPublisher,
    private readonly logger: OutboxLogger,
    options: OutboxOptions = {},
  ) {
    this.maxBufferedEvents = options.maxBufferedEvents ?? 50_000;
    this.releaseIntervalMs = options.releaseIntervalMs ?? 500;
    this.retry = options.retry ?? { baseMs: 100, maxMs: 5_000 };
    this.maxEventsPerPublish = options.maxEventsPerPublish ?? 500;
  }

  /** How many appended events are not yet known to be on Kafka (buffered ones; a catch-up counts as one). */
  get backlog(): number {
    return this.buffered + (this.catchingUp ? 1 : 0);
  }

  /**
   * Publishes what an earlier process appended and may not have published. Awaited before a service
   * takes traffic, so no new event of a stream can overtake an older one left from before a crash.
   */
  async recover(): Promise<number> {
    const commits = await this.store.unpublished();
    for (const chunk of this.chunksOf(commits)) await this.publishWithRetry(chunk.events);
    const last = commits.at(-1)?.position ?? 0;
    if (last > 0) {
      this.logger.info({ commits: commits.length, throughPosition: last }, 'republished commits a previous process left in the journal');
    }
    this.publishedThrough = Math.max(this.publishedThrough, last);
    this.lastAppended = Math.max(this.lastAppended, last);
    await this.store.releasePublished(Number.MAX_SAFE_INTEGER);
    return commits.length;
  }

  /** Takes the appended commits of one batch; batches must arrive in position order. */
  enqueue(lastPosition: number, commits: readonly Commit[]): void {
    this.lastAppended = Math.max(this.lastAppended, lastPosition);
    if (!this.catchingUp) {
      const events = commits.flatMap((c) => c.events);
      if (this.buffered + events.length > this.maxBufferedEvents) {
        this.catchingUp = true;
        this.logger.warn({ buffered: this.buffered }, 'kafka is far behind; further batches will be read back from the journal');
      } else {
        this.queue.push({ lastPosition, events });
        this.buffered += events.length;
      }
    }
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /** A batch whose append failed to answer: whatever of it is stored is read back from the journal. */
  enqueueUncertain(lastPosition: number): void {
    this.lastAppended = Math.max(this.lastAppended, lastPosition);
    this.catchingUp = true;
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /** Waits until everything enqueued so far is on Kafka (for a graceful stop). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
    await this.release();
  }

  async stop(): Promise<void> {
    await this.flush();
    this.stopped = true;
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const next = this.queue[0];
      if (next) {
        await this.publishWithRetry(next.events);
        this.queue.shift();
        this.buffered -= next.events.length;
        this.advance(next.lastPosition);
        continue;
      }
      if (!this.catchingUp) return;
      await this.catchUp();
    }
  }

  /** Re-reads the journal until Kafka has everything appended so far, then buffers again. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const target = this.lastAppended;
      const commits = (await this.readUnpublishedWithRetry()).filter((c) => c.position > this.publishedThrough);
      for (const chunk of this.chunksOf(commits)) {
        await this.publishWithRetry(chunk.events);
        this.advance(chunk.lastPosition);
      }
      if (this.publishedThrough >= target || commits.length === 0) {
        this.advance(target);
        if (this.lastAppended === target) {
          this.catchingUp = false;
          this.logger.info({ throughPosition: target }, 'kafka caught up; buffering batches again');
          return;
        }
      }
    }
  }

  private *chunksOf(commits: readonly Commit[]): Generator<Pending> {
    let chunk: Pending = { lastPosition: 0, events: [] };
    for (const commit of commits) {
      chunk.events.push(...commit.events);
      chunk.lastPosition = commit.position;
      if (chunk.events.length >= this.maxEventsPerPublish) {
        yield chunk;
        chunk = { lastPosition: 0, events: [] };
      }
    }
    if (chunk.events.length > 0) yield chunk;
  }

  private async publishWithRetry(events: readonly EventEnvelope[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.publisher.publish(events);
        return;
      } catch (error) {
        if (this.stopped) throw error;
        const delay = backoffDelay(attempt, this.retry);
        this.logger.warn({ err: error, attempt, retryInMs: delay }, 'publishing to kafka failed; retrying in order');
        await sleep(delay);
      }
    }
  }

  private async readUnpublishedWithRetry(): Promise<Commit[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.unpublished();
      } catch (error) {
        const delay = backoffDelay(attempt, this.retry);
        this.logger.warn({ err: error, attempt }, 'reading the publish journal failed; retrying');
        await sleep(delay);
      }
    }
  }

  private advance(position: number): void {
    this.publishedThrough = Math.max(this.publishedThrough, position);
    if (this.releaseTimer || this.stopped) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = null;
      void this.release();
    }, this.releaseIntervalMs);
    this.releaseTimer.unref();
  }

  private async release(): Promise<void> {
    const through = this.publishedThrough;
    if (through <= this.releasedThrough) return;
    try {
      await this.store.releasePublished(through);
      this.releasedThrough = through;
    } catch (error) {
      // Harmless: the entries stay, and a crash now would only republish what consumers already have.
      this.logger.warn({ err: error }, 'trimming the publish journal failed; will try again');
    }
  }
}
