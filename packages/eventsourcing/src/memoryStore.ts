import type { EventEnvelope } from '@chat/contracts';
import { commitSlot } from './store.js';
import type { AppendBatch, AppendResult, Commit, CommitStore, JournalEntry, StreamHead } from './store.js';

/** The same port in memory: for unit tests and specs, never for a running service. */
export class InMemoryCommitStore implements CommitStore {
  private readonly commits: Commit[] = [];
  /** Each entry lists its commits' slots (stream and start version), as the Mongo store's journal does. */
  private readonly journal = new Map<number, { slots: string[]; writtenAt: Date }>();
  private nextPosition = 1;

  readHead(streamId: string): Promise<StreamHead | null> {
    const last = this.commits.filter((c) => c.streamId === streamId).at(-1);
    return Promise.resolve(last ? { version: last.endVersion, ...(last.snapshot ? { snapshot: last.snapshot } : {}) } : null);
  }

  readStream(streamId: string): Promise<EventEnvelope[]> {
    return Promise.resolve(this.commits.filter((c) => c.streamId === streamId).flatMap((c) => c.events));
  }

  commitsStartingBetween(streamId: string, fromVersion: number, toVersion: number): Promise<EventEnvelope[]> {
    const within = (c: Commit) => c.streamId === streamId && c.startVersion >= fromVersion && c.startVersion <= toVersion;
    return Promise.resolve(structuredClone(this.commits.filter(within).flatMap((c) => c.events)));
  }

  appendBatch(batch: AppendBatch): Promise<AppendResult[]> {
    this.beginAppend(batch);
    return Promise.resolve(batch.commits.map((commit) => this.appendOne(commit)));
  }

  /**
   * Writes only a batch's journal entry, as a process does first; its commits follow with
   * `appendOne`. For tests that stage another process caught between the two writes.
   */
  beginAppend(batch: AppendBatch, writtenAt = new Date()): void {
    this.journal.set(batch.position, { slots: batch.commits.map(commitSlot), writtenAt });
  }

  /** Appends one commit outside any batch, as another writer would; for tests that stage a race. */
  appendOne(commit: Commit): AppendResult {
    const clash = this.commits.some((c) => c.streamId === commit.streamId && c.startVersion === commit.startVersion);
    if (clash) return 'conflict';
    // Trace contexts are not stored (nor cloneable).
    this.commits.push(structuredClone({ ...commit, origins: undefined }));
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

  unpublished(only?: readonly number[]): Promise<JournalEntry[]> {
    const ids = [...this.journal.keys()].filter((id) => !only || only.includes(id)).sort((a, b) => a - b);
    return Promise.resolve(ids.map((id) => this.entry(id, () => true)));
  }

  unpublishedBefore(streams: ReadonlyMap<string, number>): Promise<JournalEntry[]> {
    const below = (c: Commit) => c.startVersion < (streams.get(c.streamId) ?? 0);
    const ids = [...this.journal.keys()].sort((a, b) => a - b);
    return Promise.resolve(ids.map((id) => this.entry(id, below)).filter((entry) => entry.commits.length > 0));
  }

  releaseEntries(ids: readonly number[]): Promise<void> {
    for (const id of ids) this.journal.delete(id);
    return Promise.resolve();
  }

  private entry(id: number, keep: (commit: Commit) => boolean): JournalEntry {
    const listed = this.journal.get(id);
    const slots = new Set(listed?.slots ?? []);
    // A slot another writer won holds that writer's commit: republishing it is harmless.
    const stored = this.commits.filter((c) => slots.has(commitSlot(c)));
    return {
      id,
      commits: stored.filter(keep).map((c) => structuredClone(c)),
      complete: stored.length === slots.size,
      ...(listed ? { writtenAt: listed.writtenAt } : {}),
    };
  }

  /** Every appended commit, oldest first. */
  all(): readonly Commit[] {
    return this.commits;
  }
}

