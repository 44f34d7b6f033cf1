interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns concurrent requests for one key into batches: while a batch of that key is in flight, new
 * requests wait, and the next batch serves them all, in arrival order. Under load one round trip
 * serves many callers (one grouped append, one id increment, one Kafka produce request); alone, a
 * request goes at once — no timer ever delays it.
 */
export class Coalescer<Item, Result> {
  private readonly queues = new Map<string, Waiting<Item, Result>[]>();
  private waiting = 0;

  /**
   * `flush` answers one result per item, in order; its failure fails the whole batch. A batch holds
   * at most `maxBatch` items; the rest wait for the next.
   */
  constructor(
    private readonly flush: (key: string, items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = Number.POSITIVE_INFINITY,
  ) {}

  /** Requests submitted and not yet answered, over all keys. */
  get pending(): number {
    return this.waiting;
  }

  submit(key: string, item: Item): Promise<Result> {
    this.waiting += 1;
    return new Promise<Result>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.queues.set(key, [{ item, resolve, reject }]);
      void this.drain(key);
    }).finally(() => {
      this.waiting -= 1;
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(key) ?? [];
      const batch = queue.splice(0, this.maxBatch);
      if (batch.length === 0) {
        this.queues.delete(key);
        return;
      }
      try {
        const results = await this.flush(key, batch.map((w) => w.item));
        batch.forEach((waiting, index) => waiting.resolve(results[index] as Result));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
  }
}
