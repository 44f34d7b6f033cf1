/**
 * Which records a consumer group member may be handling for the second time (ADR 0062). A record can
 * reach a handler again only if some member (this one, before a failed run, or the partition's
 * previous owner) was handed it without its offset being committed. The previous owner could only
 * have fetched what the partition held before this member's first fetch after joining, so every
 * record below that fetch's high watermark may be a repeat; past it, a record is new unless this
 * member itself was handed it before (a run that failed and is fetched again). A handler that keeps
 * a check against repeats (a read of what was recorded) can skip it for runs this says are new.
 *
 * Kept per member generation: `joined()` forgets everything, so the first batch of every partition
 * after a (re)join is measured afresh. Without a high watermark every record may be a repeat.
 */
export class RepeatWindow {
  /** Per partition: records below this offset may be repeats. */
  private readonly below = new Map<string, bigint>();

  /** The member (re)joined its group: partitions may have moved; measure each again. */
  joined(): void {
    this.below.clear();
  }

  /**
   * A batch of a partition arrived, fetched when the partition's high watermark was `highWatermark`:
   * the first batch after a join sets the partition's window to it.
   */
  fetched(topic: string, partition: number, highWatermark: string | undefined): void {
    const key = keyOf(topic, partition);
    if (this.below.has(key)) return;
    this.below.set(key, highWatermark === undefined ? MAX_OFFSET : BigInt(highWatermark));
  }

  /**
   * A run of offsets `first`..`last` is about to be handed to the handler: whether any of it may have
   * been handed before (to this member or another). Handing it widens the window past `last`.
   */
  handing(topic: string, partition: number, first: string, last: string): boolean {
    const key = keyOf(topic, partition);
    const below = this.below.get(key) ?? MAX_OFFSET;
    const next = BigInt(last) + 1n;
    if (next > below) this.below.set(key, next);
    return BigInt(first) < below;
  }
}

/** No measured window: everything may be a repeat. */
const MAX_OFFSET = 2n ** 63n;

function keyOf(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}
