/**
 * Values loaded once per key and kept until the key is forgotten (an event changed what they were
 * loaded from). Concurrent callers share one load; a load that fails is not kept, so the next call
 * tries again.
 *
 * A key forgotten with a settle time is loaded afresh on every call until that time has passed, and
 * only then kept again: for a replica that sees an event before the read model it loads from has it
 * (another replica's consumer applies it), so a load racing that projection is never kept stale.
 */
/**
 * How long a replica that saw an event on its own watch (before the shared read model may have it)
 * loads afresh: far longer than a projection takes to apply an event unless it is stalled.
 */
export const WATCHED_EVENT_SETTLE_MS = 10_000;

export class LoadOnce<T> {
  private readonly loaded = new Map<string, Promise<T>>();
  private readonly unsettledUntil = new Map<string, number>();

  constructor(
    private readonly load: (key: string) => Promise<T>,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Promise<T> {
    const until = this.unsettledUntil.get(key);
    if (until !== undefined) {
      if (this.now() < until) return this.load(key);
      this.unsettledUntil.delete(key);
    }
    let value = this.loaded.get(key);
    if (!value) {
      value = this.load(key);
      this.loaded.set(key, value);
      value.catch(() => {
        if (this.loaded.get(key) === value) this.loaded.delete(key);
      });
    }
    return value;
  }

  forget(keys: Iterable<string>, settleMs = 0): void {
    const until = this.now() + settleMs;
    for (const key of keys) {
      this.loaded.delete(key);
      if (settleMs > 0 && until > (this.unsettledUntil.get(key) ?? 0)) this.unsettledUntil.set(key, until);
    }
  }
}
