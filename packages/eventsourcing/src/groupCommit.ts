import { ApiError } from '@chat/contracts';
import { Coalescer } from './coalescer.js';
import type { Outbox } from './outbox.js';
import type { AppendResult, Commit, CommitStore } from './store.js';
import { withAppendSpan } from './tracing.js';

export interface GroupCommitOptions {
  /**
   * Commits per grouped insert. FerretDB v1 holds a pooled connection per statement until a command
   * ends and hangs at 100 (issue 8), so a batch stays well below that.
   */
  maxBatch?: number;
  /** Commits waiting for their turn past which new ones are refused (503) instead of queueing for minutes. */
  maxWaiting?: number;
  /** Positions reserved from the store at a time. */
  positionBlock?: number;
}

/** Positions handed out from blocks reserved in the store: one store write per block, not per commit. */
class PositionSource {
  private next = 0;
  private end = 0;

  constructor(
    private readonly store: CommitStore,
    private readonly block: number,
  ) {}

  async take(count: number): Promise<number> {
    if (this.next + count > this.end) {
      const size = Math.max(this.block, count);
      this.next = await this.store.reservePositions(size);
      this.end = this.next + size;
    }
    const first = this.next;
    this.next += count;
    return first;
  }
}

/**
 * Group commit: commits that arrive while a grouped append is in flight are appended together by the
 * next one (one journal entry and one unordered insert), and handed to the outbox in position order.
 * A lone commit goes at once. A duplicate stream version fails only its own commit.
 */
export class GroupCommitter {
  private readonly batches: Coalescer<Omit<Commit, 'position'>, { result: AppendResult; commit: Commit }>;
  private readonly positions: PositionSource;
  private readonly maxWaiting: number;

  constructor(
    private readonly store: CommitStore,
    private readonly outbox: Outbox,
    options: GroupCommitOptions = {},
  ) {
    this.positions = new PositionSource(store, options.positionBlock ?? 1_000);
    this.maxWaiting = options.maxWaiting ?? 2_000;
    this.batches = new Coalescer((_key, commits) => this.appendGroup(commits), options.maxBatch ?? 50);
  }

  /** Commits submitted and not yet appended. */
  get waiting(): number {
    return this.batches.pending;
  }

  append(commit: Omit<Commit, 'position'>): Promise<{ result: AppendResult; commit: Commit }> {
    if (this.batches.pending >= this.maxWaiting) {
      return Promise.reject(
        new ApiError('ERR_SERVICE_UNAVAILABLE', 'The service is at capacity; retry the request shortly.', { retryAfterSeconds: 1 }),
      );
    }
    return this.batches.submit('all', commit);
  }

  private async appendGroup(pending: Omit<Commit, 'position'>[]): Promise<{ result: AppendResult; commit: Commit }[]> {
    const first = await this.positions.take(pending.length);
    const commits: Commit[] = pending.map((commit, index) => ({ ...commit, position: first + index }));
    let results: AppendResult[];
    try {
      results = await withAppendSpan(commits, () => this.store.appendBatch({ position: first, commits }));
    } catch (error) {
      // Some commits may be stored although the insert failed to answer: their streams go on from
      // them, so the outbox reads this batch back from the journal rather than leave a gap.
      this.outbox.enqueueUncertain(first);
      throw error;
    }
    const appended = commits.filter((_, index) => results[index] === 'appended');
    this.outbox.enqueue(first, appended);
    return commits.map((commit, index) => ({ result: results[index] ?? 'conflict', commit }));
  }
}
