import type { EventEnvelope } from '@chat/contracts';
import type { AppendResult, Commit, CommitStore, StreamHead } from './store.js';

/** The same port in memory: for unit tests and specs, never for a running service. */
export class InMemoryCommitStore implements CommitStore {
  private readonly commits: Commit[] = [];

  readHead(streamId: string): Promise<StreamHead | null> {
    const last = this.commits.filter((c) => c.streamId === streamId).at(-1);
    return Promise.resolve(last ? { version: last.endVersion, ...(last.snapshot ? { snapshot: last.snapshot } : {}) } : null);
  }

  readStream(streamId: string): Promise<EventEnvelope[]> {
    return Promise.resolve(this.commits.filter((c) => c.streamId === streamId).flatMap((c) => c.events));
  }

  append(commit: Commit): Promise<AppendResult> {
    const clash = this.commits.some((c) => c.streamId === commit.streamId && c.startVersion === commit.startVersion);
    if (clash) return Promise.resolve('conflict');
    this.commits.push(structuredClone(commit));
    return Promise.resolve('appended');
  }

  markPublished(commitId: string): Promise<void> {
    const commit = this.commits.find((c) => c.commitId === commitId);
    if (commit) commit.published = true;
    return Promise.resolve();
  }

  findUnpublished(committedBefore: Date, limit: number): Promise<Commit[]> {
    return Promise.resolve(
      this.commits.filter((c) => !c.published && c.committedAt < committedBefore).slice(0, limit),
    );
  }

  all(): readonly Commit[] {
    return this.commits;
  }
}
