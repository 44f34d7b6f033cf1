import type { EventEnvelope } from '@chat/contracts';
import type { AppendBatch, AppendResult, Commit, CommitStore, StreamHead } from './store.js';

/** The same port in memory: for unit tests and specs, never for a running service. */
export class InMemoryCommitStore implements CommitStore {
  private readonly commits: Commit[] = [];
  private readonly journal = new Map<number, string[]>();
  private nextPosition = 1;

  readHead(streamId: string): Promise<StreamHead | null> {
    const last = this.commits.filter((c) => c.streamId === streamId).at(-1);
    return Promise.resolve(last ? { version: last.endVersion, ...(last.snapshot ? { snapshot: last.snapshot } : {}) } : null);
  }

  readStream(streamId: string): Promise<EventEnvelope[]> {
    return Promise.resolve(this.commits.filter((c) => c.streamId === streamId).flatMap((c) => c.events));
  }

  appendBatch(batch: AppendBatch): Promise<AppendResult[]> {
    this.journal.set(batch.position, batch.commits.map((c) => c.commitId));
    return Promise.resolve(batch.commits.map((commit) => this.appendOne(commit)));
  }

  /** Appends one commit outside any batch, as another writer would; for tests that stage a race. */
  appendOne(commit: Commit): AppendResult {
    const clash = this.commits.some((c) => c.streamId === commit.streamId && c.startVersion === commit.startVersion);
    if (clash) return 'conflict';
    this.commits.push(structuredClone(commit));
    return 'appended';
  }

  saveHeads(): Promise<void> {
    return Promise.resolve();
  }

  reservePositions(count: number): Promise<number> {
    const first = this.nextPosition;
    this.nextPosition += count;
    return Promise.resolve(first);
  }

  unpublished(): Promise<Commit[]> {
    const ids = new Set([...this.journal.values()].flat());
    return Promise.resolve(this.commits.filter((c) => ids.has(c.commitId)).sort((a, b) => a.position - b.position));
  }

  releasePublished(throughPosition: number): Promise<void> {
    for (const position of this.journal.keys()) if (position <= throughPosition) this.journal.delete(position);
    return Promise.resolve();
  }

  /** Every appended commit, oldest first. */
  all(): readonly Commit[] {
    return this.commits;
  }
}
