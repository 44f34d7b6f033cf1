/**
 * A map that keeps at most `capacity` entries and drops the least recently used one first — at the grain of
 * half its capacity: reading an entry with `get` or writing it with `set` makes it the most recently used, unless
 * it already is among the most recent half, where it keeps its place (below); `peek` reads without any of that.
 * It is a `Map` underneath, whose insertion order is the eviction order.
 *
 * Why the grain (ADR 0163): moving an entry to the end of a `Map` is a delete and a set, and every delete leaves
 * a hole in the map's hash table until the table is rebuilt — a new table, the size of the whole map, which for a
 * cache of 10,000 entries or more V8 allocates in its large-object space, that is straight into the old
 * generation. Every use of a hot entry cost ≈ 40 bytes of old-generation garbage (measured at 10,000–50,000
 * entries); a service touches its caches dozens of times a message, and what it promotes decides how often it
 * runs a mark-compact, a pause on every request in flight. An entry used again while among the newest half is
 * far from eviction whatever it does: writing it in place (`set` of a present key changes its value without a
 * hole) and leaving its place alone costs nothing. So an entry is evicted no sooner than `capacity / 2`
 * placements after its last use, and a cache behaves as an exact LRU of between half and all of its capacity.
 *
 * The least recently used entry is found by one iterator of the map kept for the map's life (ADR 0114),
 * not by a fresh `keys()` at each eviction: a map's deleted entries stay as holes until it is rebuilt,
 * and every entry touched or evicted leaves one at the front, so a fresh iterator walked past thousands
 * of them at each eviction (6.5 µs a `set` at capacity 10,000, against 0.14). A map iterator meets the
 * entries after its position in insertion order, also those added after it was made, and an entry moved
 * to the end (deleted and set again) is met again there. Every entry it has passed was evicted or moved,
 * so the first one ahead of it is always the least recently used.
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
  /** Walks the entries in eviction order; everything behind it has been evicted or moved to the end. */
  private eviction: IterableIterator<K> = this.entries.keys();
  /** Entries placed at the end so far (added or moved): a slot placed fewer than `recentSpan` ago is among the newest half. */
  private placements = 0;
  private readonly recentSpan: number;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
    this.recentSpan = Math.floor(capacity / 2);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The entry, now among the most recently used. */
  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    this.use(key, slot);
    return slot.value;
  }

  /** The entry, its place in the eviction order unchanged. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Writes the entry as one of the most recently used, dropping the least recently used one if it is one too many. */
  set(key: K, value: V): void {
    const slot = this.entries.get(key);
    if (slot !== undefined) {
      slot.value = value;
      this.use(key, slot);
      return;
    }
    this.entries.set(key, { value, placed: this.placements++ });
    if (this.entries.size > this.capacity) this.entries.delete(this.leastRecentlyUsed());
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.eviction = this.entries.keys();
  }

  /** Moves a used entry to the end, unless it is among the newest half already (see the class comment). */
  private use(key: K, slot: Slot<V>): void {
    if (this.placements - slot.placed <= this.recentSpan) return;
    this.entries.delete(key);
    slot.placed = this.placements++;
    this.entries.set(key, slot);
  }

  private leastRecentlyUsed(): K {
    let next = this.eviction.next();
    // A map iterator that once reached the end stays there, whatever is added after: start a new one.
    if (next.done) {
      this.eviction = this.entries.keys();
      next = this.eviction.next();
    }
    return next.value as K;
  }
}

/** An entry's value and when it was last placed at the end of the eviction order (in placements). */
interface Slot<V> {
  value: V;
  placed: number;
}
