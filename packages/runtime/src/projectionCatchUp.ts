import type { PartitionLag, Watermark } from '@chat/kafka';
import { TopicFence } from './topicFence.js';

/** What the catch-up reads of the broker (`LagReader`). */
export interface GroupPositions {
  highWatermarks(topics: readonly string[]): Promise<Watermark[]>;
  measure(groupId: string, topics: readonly string[]): Promise<PartitionLag[]>;
}

export interface ProjectionCatchUpOptions {
  positions: GroupPositions;
  /** The consumer group whose projection the reads answer from, and the topics it consumes. */
  groupId: string;
  topics: readonly string[];
  /** The longest a read waits before it answers with what the read model has (and says it may be stale). */
  timeoutMs: number;
  /** How often the group's committed offsets are read while someone waits. */
  pollMs: number;
  onGiveUp?(reason: 'watch behind' | 'watermarks unreadable', detail: unknown): void;
}

/**
 * Read-your-writes for a read model fed by another service's topic (ADR 0064): a read waits until the
 * projection's consumer group, on every replica together, has applied everything that was on the
 * topics when the read came. The group's committed offsets say so (only applied records are
 * committed, ADR 0058), so the answer holds whichever replica applied a partition.
 *
 * The waiting is `TopicFence`'s: one round (a watermark read) serves every read that came before it,
 * and later reads share the next. Instead of a watch, the round's progress is the group's committed
 * offsets, polled only while a round waits.
 */
export class ProjectionCatchUp {
  private readonly fence: TopicFence;
  /** The watermarks the latest round waits for; the poll runs until the group has committed up to them. */
  private target: readonly Watermark[] = [];
  private until = 0;
  private polling = false;
  /** The group's committed offsets as last read, by `topic:partition`. */
  private readonly committed = new Map<string, number>();

  constructor(private readonly options: ProjectionCatchUpOptions) {
    this.fence = new TopicFence({
      readWatermarks: async () => {
        const marks = await options.positions.highWatermarks(options.topics);
        this.follow(marks);
        return marks;
      },
      timeoutMs: options.timeoutMs,
      onGiveUp: (reason, detail) => options.onGiveUp?.(reason, detail),
    });
  }

  get counters() {
    return this.fence.counters;
  }

  /** True once the group has applied everything on the topics now; false when the wait gave up. */
  async caughtUp(now = Date.now()): Promise<boolean> {
    await this.fence.pass(now);
    return this.fence.currentAsOf >= now;
  }

  private follow(marks: readonly Watermark[]): void {
    // Nothing produced since the group was last seen past these offsets: the round passes unpolled.
    if (this.reached(marks)) return;
    this.target = marks;
    this.until = Date.now() + this.options.timeoutMs;
    if (this.polling) return;
    this.polling = true;
    void this.poll().finally(() => {
      this.polling = false;
    });
  }

  private async poll(): Promise<void> {
    const { positions, groupId, topics, pollMs } = this.options;
    while (Date.now() < this.until) {
      let lags: PartitionLag[];
      try {
        lags = await positions.measure(groupId, topics);
      } catch {
        // The round times out on its own; the next read starts a new one.
        return;
      }
      for (const lag of lags) {
        // Nothing committed on a partition yet reads as its start: nothing of it is applied.
        const next = Math.max(lag.committed, 0);
        this.committed.set(`${lag.topic}:${lag.partition}`, next);
        this.fence.advance({ topic: lag.topic, partition: lag.partition, next });
      }
      if (this.reached(this.target)) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private reached(marks: readonly Watermark[]): boolean {
    return marks.every((mark) => (this.committed.get(`${mark.topic}:${mark.partition}`) ?? -1) >= mark.offset);
  }
}
