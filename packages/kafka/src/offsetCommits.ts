/** A partition's next offset to read, as Kafka's OffsetCommit takes it. */
export interface CommittableOffset {
  topic: string;
  partition: number;
  offset: string;
}

/** kafkajs's `uncommittedOffsets()`: the resolved offsets not yet committed, by topic. */
export interface UncommittedOffsets {
  topics: ReadonlyArray<{ topic: string; partitions: ReadonlyArray<{ partition: number; offset: string }> }>;
}

export type CommitOffsets = (offsets: readonly CommittableOffset[]) => Promise<unknown>;

export interface OffsetCommitsOptions {
  /** The shortest time between two commits of the group's member (ADR 0058). */
  intervalMs: number;
  /** Commits outside a batch (the timer's flush): the consumer's `commitOffsets`. */
  commit: CommitOffsets;
  /** A commit that failed; its offsets are tried again at the next commit. */
  onError(error: unknown): void;
  /** Timers and clock, replaceable in tests. */
  schedule?: (run: () => void, ms: number) => () => void;
  now?: () => number;
}

/**
 * The offset commits of one consumer group member, at most one per `intervalMs` (ADR 0058): kafkajs
 * commits after every partition's batch, which under load is most of a group's Kafka requests and of
 * the broker's CPU per message. Applied offsets wait at most `intervalMs` to be committed: the first
 * applied batch after a quiet spell commits at once, the ones after it within the interval (a timer
 * commits what the last batch left, so an idle group's committed offsets catch up too).
 *
 * Nothing is lost by the wait: only applied events are committed, so a member that crashes or loses
 * its partitions before a commit has its last runs delivered again, to itself or the new owner, and
 * the projections apply them idempotently (as after any crash). `flush()` on a rebalance and on stop
 * keeps that redelivery small; `forget()` after a rejoin drops what kafkajs will fetch again anyway.
 */
export class OffsetCommits {
  private readonly pending = new Map<string, CommittableOffset>();
  private readonly schedule: (run: () => void, ms: number) => () => void;
  private readonly now: () => number;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private cancelTimer: (() => void) | null = null;
  private inFlight: Promise<void> | null = null;
  private immediate = false;

  constructor(private readonly options: OffsetCommitsOptions) {
    this.now = options.now ?? Date.now;
    this.schedule =
      options.schedule ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        return () => clearTimeout(timer);
      });
  }

  /** Offsets awaiting their commit (for tests and a log line). */
  get waiting(): readonly CommittableOffset[] {
    return [...this.pending.values()];
  }

  /**
   * After a batch was applied: what is resolved and not committed. Commits now with `commit` (the
   * batch's own, which also works while the consumer stops) when the interval has passed, otherwise
   * leaves it to the timer. Only a stopping consumer waits for that commit: kafkajs fetches again only
   * once every batch of a fetch has returned, so a batch that waited for its commit's round trip held
   * back every record that arrived meanwhile, every interval (ADR 0067).
   */
  async applied(uncommitted: UncommittedOffsets, commit: CommitOffsets): Promise<void> {
    this.add(uncommitted.topics.flatMap(({ topic, partitions }) => partitions.map(({ partition, offset }) => ({ topic, partition, offset }))));
    if (this.pending.size === 0) return;
    if (this.immediate) {
      await this.flush(commit);
      return;
    }
    const wait = this.lastCommitAt + this.options.intervalMs - this.now();
    if (wait <= 0 && !this.inFlight) {
      this.flush(commit).catch((error: unknown) => this.options.onError(error));
      return;
    }
    this.arm(Math.max(wait, 0));
  }

  /** Commits what is waiting now (a rebalance, a stop), after the commit in flight if there is one. */
  async flush(commit: CommitOffsets = this.options.commit): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (this.pending.size === 0) return;
    this.cancelTimer?.();
    this.cancelTimer = null;
    const offsets = [...this.pending.values()];
    this.pending.clear();
    this.lastCommitAt = this.now();
    const attempt = commit(offsets).then(
      () => undefined,
      (error: unknown) => {
        this.options.onError(error);
        // Tried again with the next commit, unless a later batch already moved the partition on.
        this.add(offsets.filter((o) => !this.pending.has(keyOf(o))));
        this.arm(this.options.intervalMs);
      },
    );
    this.inFlight = attempt.finally(() => {
      this.inFlight = null;
    });
    await this.inFlight;
  }

  /**
   * The member rejoined its group: kafkajs reads the committed offsets again and fetches from them, so
   * what was waiting is delivered again (to this member or a new owner) and must not be committed over
   * the new owner's progress.
   */
  forget(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.pending.clear();
  }

  /** From now on every applied batch commits at once (the consumer is stopping: no timer will run). */
  stopping(): void {
    this.immediate = true;
  }

  private arm(ms: number): void {
    this.cancelTimer ??= this.schedule(() => {
      this.cancelTimer = null;
      void this.flush();
    }, ms);
  }

  private add(offsets: readonly CommittableOffset[]): void {
    for (const offset of offsets) {
      const key = keyOf(offset);
      const known = this.pending.get(key);
      if (!known || BigInt(known.offset) < BigInt(offset.offset)) this.pending.set(key, offset);
    }
  }
}

function keyOf({ topic, partition }: { topic: string; partition: number }): string {
  return `${topic}:${partition}`;
}
