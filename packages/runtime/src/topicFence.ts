import type { PartitionProgress, Watermark } from '@chat/kafka';

export interface TopicFenceOptions {
  /** The high watermarks of the watched topics now (`LagReader.highWatermarks`: one ListOffsets request, ADR 0072). */
  readWatermarks(): Promise<readonly Watermark[]>;
  /** The longest one round waits for the watch to reach the watermarks before it lets its waiters go. */
  timeoutMs: number;
  /** A round that timed out or could not read the watermarks: for a log line (the counters are the metric). */
  onGiveUp?(reason: 'watch behind' | 'watermarks unreadable', detail: unknown): void;
  /**
   * The least time between the starts of two rounds (default 0: back to back). Under a steady stream
   * of callers every caller comes after the round in flight started, so rounds would otherwise follow
   * each other as fast as the broker answers: 40 a second at 100 msg/s, each a Metadata and two
   * ListOffsets per watched topic (ADR 0068). A caller waits at most this much longer.
   */
  minRoundSpacingMs?: number;
  now?: () => number;
}

export interface TopicFenceCounters {
  /** Watermark reads (one per round). */
  rounds: number;
  /** Rounds whose waiters went on before the watch reached the watermarks. */
  timeouts: number;
  /** Rounds that could not read the watermarks (broker away). */
  unreadable: number;
}

interface Round {
  /** When its watermarks were asked for: everything on the topics before then is below them. */
  readAt: number;
  done: Promise<void>;
}

/**
 * Tells a caller when this process's event watch has seen every event that was on some topics at a
 * given time. `pass(t)` waits for one round that started at or after `t`: read the topics' high
 * watermarks, then wait until the watch has consumed up to them. One round is in flight at a time; it
 * serves every caller whose time it covers, and callers that come later share the next one. So a
 * steady stream of callers costs one watermark read per round, not one per caller.
 *
 * A round never fails its callers: after `timeoutMs`, or when the watermarks cannot be read, they go on
 * (counted, and reported to `onGiveUp`), because a stalled watch must slow work down, not stop it.
 */
export class TopicFence {
  readonly counters: TopicFenceCounters = { rounds: 0, timeouts: 0, unreadable: 0 };
  private readonly consumed = new Map<string, number>();
  private readonly progressListeners = new Set<() => void>();
  private readonly now: () => number;
  /** The latest round whose watermarks the watch reached: it has seen everything on the topics before this time. */
  private seenUpTo = Number.NEGATIVE_INFINITY;
  private running: Round | null = null;
  private queued: Promise<void> | null = null;
  /** When the latest round read (or will read) its watermarks. */
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: TopicFenceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Everything on the topics before this time has reached the watch. */
  get currentAsOf(): number {
    return this.seenUpTo;
  }

  /** The watch's progress in one partition (offsets only move forward: a relaunched watch re-reads). */
  advance(progress: PartitionProgress): void {
    const key = partitionKey(progress);
    if ((this.consumed.get(key) ?? -1) >= progress.next) return;
    this.consumed.set(key, progress.next);
    for (const listener of [...this.progressListeners]) listener();
  }

  /** Resolves once the watch has seen every event that was on the topics at `time` (or a round gave up). */
  pass(time: number): Promise<void> {
    if (this.seenUpTo >= time) return Promise.resolve();
    if (this.running && this.running.readAt >= time) return this.running.done;
    if (!this.running) return this.startRound().done;
    // The round in flight read its watermarks too early for this caller: share the next one.
    this.queued ??= this.running.done.then(() => {
      this.queued = null;
      return this.startRound().done;
    });
    return this.queued;
  }

  private startRound(): Round {
    const now = this.now();
    // A round too soon after the last one reads at the earliest time the spacing allows; callers up to
    // that time join it. Its timer fires at that time or later, so what it reads covers them all.
    const readAt = Math.max(now, this.lastReadAt + (this.options.minRoundSpacingMs ?? 0));
    this.lastReadAt = readAt;
    this.counters.rounds += 1;
    const round: Round = {
      readAt,
      done: this.waitForWatch(readAt, readAt - now).finally(() => {
        if (this.running === round) this.running = null;
      }),
    };
    this.running = round;
    return round;
  }

  private async waitForWatch(readAt: number, delayMs: number): Promise<void> {
    // A timer may fire a little before the wall clock shows its time: the read must not come early.
    for (let wait = delayMs; wait > 0; wait = readAt - this.now()) await new Promise((resolve) => setTimeout(resolve, wait));
    this.lastReadAt = Math.max(this.lastReadAt, this.now());
    let watermarks: readonly Watermark[];
    try {
      watermarks = await this.options.readWatermarks();
    } catch (error) {
      this.counters.unreadable += 1;
      this.options.onGiveUp?.('watermarks unreadable', error);
      return;
    }
    const behind = () => watermarks.filter((w) => (this.consumed.get(partitionKey(w)) ?? -1) < w.offset);
    if (behind().length > 0) {
      const caughtUp = await new Promise<boolean>((resolve) => {
        const check = () => {
          if (behind().length > 0) return;
          finish(true);
        };
        const timer = setTimeout(() => finish(false), this.options.timeoutMs);
        const finish = (reached: boolean) => {
          clearTimeout(timer);
          this.progressListeners.delete(check);
          resolve(reached);
        };
        this.progressListeners.add(check);
      });
      if (!caughtUp) {
        this.counters.timeouts += 1;
        this.options.onGiveUp?.('watch behind', behind());
        return;
      }
    }
    this.seenUpTo = Math.max(this.seenUpTo, readAt);
  }
}

function partitionKey(p: { topic: string; partition: number }): string {
  return `${p.topic}:${p.partition}`;
}
