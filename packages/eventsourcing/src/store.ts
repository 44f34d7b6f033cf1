import type { EventEnvelope } from '@chat/contracts';
import type { Context } from '@opentelemetry/api';

export interface Snapshot {
  version: number;
  state: unknown;
}

/**
 * One command's worth of events, stored as one document so the append is atomic on every
 * Mongo-compatible server. `startVersion` is unique per stream: two writers that read the same
 * head collide there, which is the optimistic-concurrency check.
 */
export interface Commit {
  commitId: string;
  appId: string;
  streamId: string;
  startVersion: number;
  endVersion: number;
  /**
   * Where the commit stands in its store's total order: increases with every append of one writer,
   * so the publisher can say "published up to here" once instead of marking every commit.
   */
  position: number;
  events: EventEnvelope[];
  /**
   * Not stored: set by the command runner when the commit's stream was loaded from the store rather
   * than continued from this process's own last append, so its previous commit may be another
   * replica's and not on Kafka yet. The outbox then publishes such predecessors first.
   */
  afterForeign?: boolean;
  /**
   * Not stored: per event (same order as `events`), the trace context of the command that produced
   * it, for the append span and the `traceparent` header on Kafka (ADR 0032). Absent when nothing is
   * traced, and for commits read back from the store (a republish after a crash starts no trace).
   */
  origins?: readonly (Context | undefined)[];
  /** State after this commit, so loading a stream reads one document instead of replaying it. */
  snapshot?: Snapshot;
  committedAt: Date;
}

/** A commit's slot in its stream, `stream@startVersion`: unique in a store, as journal entries name them. */
export function commitSlot(commit: Pick<Commit, 'streamId' | 'startVersion'>): string {
  return `${commit.streamId}@${commit.startVersion}`;
}

export interface StreamHead {
  version: number;
  snapshot?: Snapshot;
}

export type AppendResult = 'appended' | 'conflict';

/** A group of commits appended together: the publish journal remembers it until it is on Kafka. */
export interface AppendBatch {
  /** The first position of the batch; its commits hold this and the following positions. */
  position: number;
  commits: readonly Commit[];
}

/** One grouped append's journal entry (its id is the batch's first position) and its stored commits. */
export interface JournalEntry {
  id: number;
  commits: Commit[];
  /**
   * Every commit the entry lists was found. An entry is written before its commits, so an
   * incomplete one is either an append still in flight in some live process, or one that never
   * landed (its process failed or died in between). Meaningful in `unpublished` answers;
   * `unpublishedBefore` reads entries only in part and may say false.
   */
  complete: boolean;
  /** When the entry was written (absent for entries written before the journal kept it). */
  writtenAt?: Date;
}

export interface ReadHeadOptions {
  /**
   * After a conflict the fast look-up was evidently behind (another writer, or a stream written
   * before stream heads were kept): read whatever the store can tell, however slowly.
   */
  thorough?: boolean;
  /**
   * A head this process holds: only commits after it are looked for (one look-up when there is none,
   * and then this same head is answered), instead of starting from the saved head.
   */
  after?: StreamHead;
}

/** The event store of one service, as the command runner needs it. */
export interface CommitStore {
  readHead(streamId: string, options?: ReadHeadOptions): Promise<StreamHead | null>;
  readStream(streamId: string): Promise<EventEnvelope[]>;
  /**
   * The events of the stream's commits that start at a version in `[fromVersion, toVersion]`, in
   * version order: read by key, so the range should be short. A caller whose `fromVersion` starts a
   * commit gets every event from there to the end of the commit that starts at or below `toVersion`.
   */
  commitsStartingBetween(streamId: string, fromVersion: number, toVersion: number): Promise<EventEnvelope[]>;
  /**
   * Appends a batch of commits of different streams with one journal entry and one grouped
   * insert; each commit succeeds or conflicts on its own. Results are in the batch's order.
   */
  appendBatch(batch: AppendBatch): Promise<AppendResult[]>;
  /** Remembers stream heads so a cold load needs no scan; a head may lag, never lead. */
  saveHeads(heads: ReadonlyMap<string, StreamHead>): Promise<void>;
  /** Reserves `count` consecutive positions and answers the first. */
  reservePositions(count: number): Promise<number>;
  /**
   * The journal entries not yet released (every process's, or only those with these ids), by id,
   * each with its commits that were stored.
   */
  unpublished(only?: readonly number[]): Promise<JournalEntry[]>;
  /**
   * The unreleased journal entries holding commits of these streams below the given start versions,
   * each with only those commits: what must reach Kafka before a commit at that version.
   */
  unpublishedBefore(streams: ReadonlyMap<string, number>): Promise<JournalEntry[]>;
  /**
   * Forgets these journal entries, whose commits are all on Kafka. By id, never "up to a position":
   * replicas reserve positions in blocks, so a lower position may be another replica's, still unpublished.
   */
  releaseEntries(ids: readonly number[]): Promise<void>;
}

export interface EventPublisher {
  /** `origins`, when given, holds each event's trace context (same order as `events`). */
  publish(events: readonly EventEnvelope[], origins?: readonly (Context | undefined)[]): Promise<void>;
}
