/**
 * Values loaded once per key and kept until the key is forgotten (an event changed what they were
 * loaded from). Concurrent callers share one load; a load that fails is not kept, so the next call
 * tries again.
 */
export class LoadOnce<T> {
  private readonly loaded = new Map<string, Promise<T>>();

  constructor(private readonly load: (key: string) => Promise<T>) {}

  get(key: string): Promise<T> {
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

  forget(keys: Iterable<string>): void {
    for (const key of keys) this.loaded.delete(key);
  }
}
