import type { AppendResult, Commit, CommitStore, StreamHead } from '@chat/eventsourcing';
import type { EventEnvelope } from '@chat/contracts';

/**
 * Remembers the head (version + snapshot) of streams this process appended to, so the next command
 * on a busy conversation skips one read — FerretDB's few hundred operations per second are the
 * send path's ceiling. Safe with several instances: a stale head makes the append collide on the
 * unique stream position, the entry is dropped, and `handleCommand` retries from a fresh read.
 */
export class CachedHeadsCommitStore implements CommitStore {
  private readonly heads = new Map<string, StreamHead>();

  constructor(
    private readonly inner: CommitStore,
    private readonly capacity = 10_000,
  ) {}

  async readHead(streamId: string): Promise<StreamHead | null> {
    const cached = this.heads.get(streamId);
    if (cached) {
      // Re-insert: the map's order is the eviction order (least recently used first).
      this.heads.delete(streamId);
      this.heads.set(streamId, cached);
      return cached;
    }
    return this.inner.readHead(streamId);
  }

  readStream(streamId: string): Promise<EventEnvelope[]> {
    return this.inner.readStream(streamId);
  }

  async append(commit: Commit): Promise<AppendResult> {
    const outcome = await this.inner.append(commit);
    if (outcome === 'conflict') {
      this.heads.delete(commit.streamId);
      return outcome;
    }
    this.heads.delete(commit.streamId);
    this.heads.set(commit.streamId, { version: commit.endVersion, ...(commit.snapshot ? { snapshot: commit.snapshot } : {}) });
    if (this.heads.size > this.capacity) {
      const oldest = this.heads.keys().next().value;
      if (oldest !== undefined) this.heads.delete(oldest);
    }
    return outcome;
  }

  markPublished(commitId: string): Promise<void> {
    return this.inner.markPublished(commitId);
  }

  findUnpublished(committedBefore: Date, limit: number): Promise<Commit[]> {
    return this.inner.findUnpublished(committedBefore, limit);
  }
}
