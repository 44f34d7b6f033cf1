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
  events: EventEnvelope[];
  /** State after this commit, so loading a stream reads one document instead of replaying it. */
  snapshot?: Snapshot;
  committedAt: Date;
  published: boolean;
}

export interface StreamHead {
  version: number;
  snapshot?: Snapshot;
}

export type AppendResult = 'appended' | 'conflict';

export interface CommitStore {
  readHead(streamId: string): Promise<StreamHead | null>;
  readStream(streamId: string): Promise<EventEnvelope[]>;
  append(commit: Commit): Promise<AppendResult>;
  markPublished(commitId: string): Promise<void>;
  /** Commits not marked published and committed before `committedBefore`, oldest first. */
  findUnpublished(committedBefore: Date, limit: number): Promise<Commit[]>;
}

export interface EventPublisher {
  publish(events: readonly EventEnvelope[]): Promise<void>;
}
