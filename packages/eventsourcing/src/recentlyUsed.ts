/**
 * A map that keeps at most `capacity` entries and drops the least recently used one first. Reading
 * an entry with `get` or writing it with `set` makes it the most recently used; `peek` reads without
 * that. It is a `Map` underneath, whose insertion order is the eviction order.
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, V>();

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
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
