import type { EventEnvelope } from '@chat/contracts';

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
  /** State after this commit, so loading a stream reads one document instead of replaying it. */
  snapshot?: Snapshot;
  committedAt: Date;
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

export interface ReadHeadOptions {
  /**
   * After a conflict the fast look-up was evidently behind (another writer, or a stream written
   * before stream heads were kept): read whatever the store can tell, however slowly.
   */
  thorough?: boolean;
}

/** The event store of one service, as the command runner needs it. */
export interface CommitStore {
  readHead(streamId: string, options?: ReadHeadOptions): Promise<StreamHead | null>;
  readStream(streamId: string): Promise<EventEnvelope[]>;
  /**
   * Appends a batch of commits of different streams with one journal entry and one grouped
   * insert; each commit succeeds or conflicts on its own. Results are in the batch's order.
   */
  appendBatch(batch: AppendBatch): Promise<AppendResult[]>;
  /** Remembers stream heads so a cold load needs no scan; a head may lag, never lead. */
  saveHeads(heads: ReadonlyMap<string, StreamHead>): Promise<void>;
  /** Reserves `count` consecutive positions and answers the first. */
  reservePositions(count: number): Promise<number>;
  /** The appended commits of every journal entry not yet released, in position order. */
  unpublished(): Promise<Commit[]>;
  /** Forgets the journal entries of batches whose commits are all on Kafka, up to this position. */
  releasePublished(throughPosition: number): Promise<void>;
}

export interface EventPublisher {
  publish(events: readonly EventEnvelope[]): Promise<void>;
}
