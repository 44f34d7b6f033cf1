/**
 * A map that keeps at most `capacity` entries and drops the least recently used one first. Reading
 * an entry with `get` or writing it with `set` makes it the most recently used; `peek` reads without
 * that. It is a `Map` underneath, whose insertion order is the eviction order.
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
  private readonly entries = new Map<K, V>();
  /** Walks the entries in eviction order; everything behind it has been evicted or moved to the end. */
  private eviction: IterableIterator<K> = this.entries.keys();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The entry, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    // A second look only for a stored `undefined`; a hit (the gateway's key cache on every request) costs one.
    if (value === undefined && !this.entries.has(key)) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value as V);
    return value;
  }

  /** The entry, its place in the eviction order unchanged. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Writes the entry as the most recently used, dropping the least recently used one if it is one too many. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.leastRecentlyUsed());
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

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.eviction = this.entries.keys();
  }
}
