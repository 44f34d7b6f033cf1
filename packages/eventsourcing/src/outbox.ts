import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope } from '@chat/contracts';
import type { Context } from '@opentelemetry/api';
import { backoffDelay } from './backoff.js';
import type { Backoff } from './backoff.js';
import { commitSlot } from './store.js';
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
  /**
   * How old a journal entry whose commits are not all stored must be before a recovery forgets it:
   * younger, it may be another live process's append still in flight.
   */
  abandonedEntryMs?: number;
  /**
   * Batches whose every event is bulk (a data import's, ADR 0159) wait up to `lingerMs` from the first
   * of them for more before their produce, or until `maxEventsPerPublish` are queued: every reader of
   * the topic then fetches a few large batches instead of one per request. A batch of any other event
   * ends the wait at once, so nothing but bulk events ever waits.
   */
  bulk?: { isBulk(event: EventEnvelope): boolean; lingerMs: number };
}

interface Pending {
  /** The batch's journal entry. */
  entry: number;
  commits: Commit[];
  /** Every event of it is bulk (`OutboxOptions.bulk`): it may wait for more. */
  bulk: boolean;
  /** When it was queued (epoch ms). */
  at: number;
}

/**
 * The commits in an order Kafka may receive them: every stream's commits by version. Commits of one
 * process are in position order already, but positions are reserved in blocks per process, so when
 * the commits of several replicas are merged a lower position may hold a later version of a stream.
 * Each stream keeps the slots its commits had in position order, filled in version order.
 */
export function inStreamOrder(commits: readonly Commit[]): Commit[] {
  const byPosition = [...commits].sort((a, b) => a.position - b.position);
  const byStream = new Map<string, Commit[]>();
  for (const commit of byPosition) {
    const list = byStream.get(commit.streamId);
    if (list) list.push(commit);
    else byStream.set(commit.streamId, [commit]);
  }
  for (const list of byStream.values()) list.sort((a, b) => a.startVersion - b.startVersion);
  const next = new Map<string, number>();
  return byPosition.map((commit) => {
    const index = next.get(commit.streamId) ?? 0;
    next.set(commit.streamId, index + 1);
    return byStream.get(commit.streamId)![index]!;
  });
}


function eventsIn(commits: readonly Commit[]): number {
  return commits.reduce((sum, commit) => sum + commit.events.length, 0);
}

/**
 * The queued batches the next produce carries, from the front: at least one, and then as many as
 * keep it within `maxEvents` (a larger batch still goes alone; publishCommits splits it).
 */
export function takeBatches<T extends { commits: readonly Commit[] }>(queue: readonly T[], maxEvents: number): T[] {
  const taken: T[] = [];
  let events = 0;
  for (const pending of queue) {
    const size = eventsIn(pending.commits);
    if (taken.length > 0 && events + size > maxEvents) break;
    taken.push(pending);
    events += size;
  }
  return taken;
}

function uniqueSlots(commits: readonly Commit[]): readonly Commit[] {
  const seen = new Set<string>();
  return commits.filter((commit) => {
    const slot = commitSlot(commit);
    if (seen.has(slot)) return false;
    seen.add(slot);
    return true;
  });
}

/**
 * Publishes appended commits to Kafka so that every stream's events reach Kafka in version order,
 * across failures and across replicas:
 * - a failed produce is retried (backoff with jitter) and nothing of this process after it goes first;
 * - a commit whose stream was last written by another process (another replica, or a predecessor
 *   that crashed) first publishes whatever of that stream is still in the publish journal, so a
 *   replica slow to reach Kafka cannot leave version n behind this process's n+1 (consumers'
 *   "apply only if newer" guards would skip n for good); the duplicate is harmless, consumers
 *   de-duplicate on stream and version.
 * The store's publish journal is the checkpoint: one entry per grouped append, released by id once
 * its commits are on Kafka (never "up to a position": another replica's lower positions may still be
 * unpublished). After a crash `recover()` republishes whatever any process left in it.
 */
export class Outbox {
  private readonly queue: Pending[] = [];
  private buffered = 0;
  /** Kafka fell so far behind that new batches are read back from the journal instead of buffered. */
  private catchingUp = false;
  /** Journal entries of this process not yet on Kafka. */
  private readonly pendingEntries = new Set<number>();
  /** Journal entries on Kafka, waiting for the next release. */
  private readonly publishedEntries = new Set<number>();
  private draining: Promise<void> | null = null;
  private releaseTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly maxBufferedEvents: number;
  private readonly releaseIntervalMs: number;
  private readonly retry: Backoff;
  private readonly maxEventsPerPublish: number;
  private readonly abandonedEntryMs: number;
  private readonly bulk: OutboxOptions['bulk'];
  /** Ends a bulk batch's wait (`OutboxOptions.bulk`) early, while one waits. */
  private endLinger: (() => void) | null = null;

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
    this.abandonedEntryMs = options.abandonedEntryMs ?? 60_000;
    this.bulk = options.bulk;
  }

  /** How many appended events are not yet known to be on Kafka (buffered ones; a catch-up counts as one). */
  get backlog(): number {
    return this.buffered + (this.catchingUp ? 1 : 0);
  }

  /**
   * Publishes what earlier processes appended and may not have published (a live replica's entries
   * too: publishing them again is harmless). Awaited before a service takes traffic, so no new event
   * of a stream can overtake an older one left from before a crash.
   */
  async recover(): Promise<number> {
    const entries = await this.store.unpublished();
    const commits = entries.flatMap((entry) => entry.commits);
    await this.publishCommits(commits, false);
    if (commits.length > 0) {
      this.logger.info({ commits: commits.length, entries: entries.length }, 'republished commits earlier processes left in the journal');
    }
    // An entry is written before its commits. One read while some of them were missing may be a live
    // replica's append in flight: released now, its commits would land outside the journal, and a
    // commit on top of them by another process would find no predecessor to publish first.
    const abandonedBefore = Date.now() - this.abandonedEntryMs;
    const done = entries.filter((entry) => entry.complete || (entry.writtenAt?.getTime() ?? 0) < abandonedBefore);
    await this.store.releaseEntries(done.map((entry) => entry.id));
    return commits.length;
  }

  /** Takes the appended commits of one batch (its journal entry); batches must arrive in position order. */
  enqueue(entry: number, commits: readonly Commit[]): void {
    this.pendingEntries.add(entry);
    if (!this.catchingUp) {
      const events = eventsIn(commits);
      if (this.buffered + events > this.maxBufferedEvents) {
        this.catchingUp = true;
        this.logger.warn({ buffered: this.buffered }, 'kafka is far behind; further batches will be read back from the journal');
      } else {
        const bulk = this.bulk !== undefined && commits.every((commit) => commit.events.every((event) => this.bulk!.isBulk(event)));
        this.queue.push({ entry, commits: [...commits], bulk, at: Date.now() });
        this.buffered += events;
        if (!bulk || this.buffered >= this.maxEventsPerPublish) this.endLinger?.();
      }
    }
    this.startDraining();
  }

  /** A batch whose append failed to answer: whatever of it is stored is read back from the journal. */
  enqueueUncertain(entry: number): void {
    this.pendingEntries.add(entry);
    this.catchingUp = true;
    this.endLinger?.();
    this.startDraining();
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

  private startDraining(): void {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      // Every batch that queued while the last produce was in flight goes in the next one (group
      // commit, as the appends do): one produce per batch let the queue grow whenever batches came
      // faster than the broker's acks, and each event waited for every produce before its own.
      await this.lingerForBulk();
      const taken = takeBatches(this.queue, this.maxEventsPerPublish);
      if (taken.length > 0) {
        await this.publishCommits(taken.flatMap((pending) => pending.commits), true);
        this.queue.splice(0, taken.length);
        this.buffered -= taken.reduce((sum, pending) => sum + eventsIn(pending.commits), 0);
        this.markPublished(taken.map((pending) => pending.entry));
        continue;
      }
      if (!this.catchingUp) return;
      await this.catchUp();
    }
  }

  /** While only bulk batches are queued, short of a full produce: waits for more (`OutboxOptions.bulk`). */
  private async lingerForBulk(): Promise<void> {
    const first = this.queue[0];
    if (!this.bulk || !first || this.catchingUp || this.buffered >= this.maxEventsPerPublish || !this.queue.every((p) => p.bulk)) return;
    const left = first.at + this.bulk.lingerMs - Date.now();
    if (left <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.endLinger?.(), left);
      this.endLinger = () => {
        clearTimeout(timer);
        this.endLinger = null;
        resolve();
      };
    });
  }

  /** Re-reads this process's pending journal entries until none is left, then buffers again. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const ids = [...this.pendingEntries];
      if (ids.length === 0) {
        this.catchingUp = false;
        this.logger.info({}, 'kafka caught up; buffering batches again');
        return;
      }
      const entries = await this.withRetry('reading the publish journal', () => this.store.unpublished(ids));
      // Read back from the store: whether another process wrote between them is not known, so every
      // commit looks for predecessors.
      await this.publishCommits(
        entries.flatMap((entry) => entry.commits.map((commit) => ({ ...commit, afterForeign: true }))),
        true,
      );
      // An entry not found had nothing stored (its append failed before the journal was written).
      this.markPublished(ids);
    }
  }

  /**
   * Publishes commits in stream order, in produce requests of at most maxEventsPerPublish events,
   * after whatever other processes left unpublished before them in their streams.
   */
  private async publishCommits(commits: readonly Commit[], withPredecessors: boolean): Promise<void> {
    if (commits.length === 0) return;
    let all = commits;
    if (withPredecessors) {
      // Below the LAST such commit of each stream, not the first: when several of this process's
      // commits of one stream go together (a catch-up), another process's commit may sit between
      // them, and it must go between them too.
      const lastVersions = new Map<string, number>();
      for (const commit of commits) {
        if (commit.afterForeign !== true || commit.startVersion <= 1) continue;
        lastVersions.set(commit.streamId, Math.max(lastVersions.get(commit.streamId) ?? 0, commit.startVersion));
      }
      if (lastVersions.size > 0) {
        const entries = await this.withRetry('reading the publish journal', () => this.store.unpublishedBefore(lastVersions));
        // This process's own entries that are already on Kafka need not go again.
        const own = new Set(commits.map(commitSlot));
        const predecessors = entries
          .filter((entry) => !this.publishedEntries.has(entry.id))
          .flatMap((entry) => entry.commits)
          .filter((commit) => !own.has(commitSlot(commit)));
        if (predecessors.length > 0) all = [...predecessors, ...commits];
      }
    }
    // Journal entries name slots, so a slot another writer won brings that writer's commit, which
    // may also come in its own entry: each commit goes once.
    all = uniqueSlots(all);
    let chunk: EventEnvelope[] = [];
    // Each event's trace context, kept only while some commit has one (tracing off: never).
    let origins: (Context | undefined)[] | undefined;
    for (const commit of inStreamOrder(all)) {
      if (commit.origins && !origins) origins = chunk.map(() => undefined);
      if (origins) origins.push(...(commit.origins ?? commit.events.map(() => undefined)));
      chunk.push(...commit.events);
      if (chunk.length >= this.maxEventsPerPublish) {
        await this.publishWithRetry(chunk, origins);
        chunk = [];
        origins = undefined;
      }
    }
    if (chunk.length > 0) await this.publishWithRetry(chunk, origins);
  }

  private async publishWithRetry(events: readonly EventEnvelope[], origins: readonly (Context | undefined)[] | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.publisher.publish(events, origins);
        return;
      } catch (error) {
        if (this.stopped) throw error;
        const delay = backoffDelay(attempt, this.retry);
        this.logger.warn({ err: error, attempt, retryInMs: delay }, 'publishing to kafka failed; retrying in order');
        await sleep(delay);
      }
    }
  }

  private async withRetry<T>(what: string, read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (error) {
        const delay = backoffDelay(attempt, this.retry);
        this.logger.warn({ err: error, attempt }, `${what} failed; retrying`);
        await sleep(delay);
      }
    }
  }

  private markPublished(entries: readonly number[]): void {
    for (const entry of entries) {
      this.pendingEntries.delete(entry);
      this.publishedEntries.add(entry);
    }
    if (this.releaseTimer || this.stopped) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = null;
      void this.release();
    }, this.releaseIntervalMs);
    this.releaseTimer.unref();
  }

  private async release(): Promise<void> {
    const entries = [...this.publishedEntries];
    if (entries.length === 0) return;
    try {
      await this.store.releaseEntries(entries);
      for (const entry of entries) this.publishedEntries.delete(entry);
    } catch (error) {
      // Harmless: the entries stay, and a crash now would only republish what consumers already have.
      this.logger.warn({ err: error }, 'trimming the publish journal failed; will try again');
    }
  }
}
