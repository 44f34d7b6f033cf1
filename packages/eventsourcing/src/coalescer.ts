interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export interface CoalescerOptions {
  /** Items per batch; the rest wait for the next. */
  maxBatch?: number;
  /**
   * An idle key's first batch starts once the current turn of the event loop is done (`setImmediate`)
   * instead of at once, so that requests made by continuations released together — the commands of one
   * group commit, each in its own lane — share it instead of the first going alone and the rest after
   * it. No timer: an idle loop runs the batch right after the submitting task.
   */
  gatherTurn?: boolean;
}

/**
 * Turns concurrent requests for one key into batches: while a batch of that key is in flight, new
 * requests wait, and the next batch serves them all, in arrival order. Under load one round trip
 * serves many callers (one grouped append, one id increment, one Kafka produce request); alone, a
 * request goes at once (or after its event-loop turn, `gatherTurn`) — no timer ever delays it.
 */
export class Coalescer<Item, Result> {
  private readonly queues = new Map<string, Waiting<Item, Result>[]>();
  private waiting = 0;
  private readonly maxBatch: number;
  private readonly gatherTurn: boolean;

  /**
   * `flush` answers one result per item, in order; its failure fails the whole batch. The second
   * argument is the batch size (`maxBatch`) or the options.
   */
  constructor(
    private readonly flush: (key: string, items: Item[]) => Promise<Result[]>,
    options: number | CoalescerOptions = {},
  ) {
    const { maxBatch = Number.POSITIVE_INFINITY, gatherTurn = false } = typeof options === 'number' ? { maxBatch: options } : options;
    this.maxBatch = maxBatch;
    this.gatherTurn = gatherTurn;
  }

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
      if (this.gatherTurn) setImmediate(() => void this.drain(key));
      else void this.drain(key);
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
