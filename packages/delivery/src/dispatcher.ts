/** One delivery waiting in its lane. */
export interface QueuedDelivery {
  deliveryId: string;
  appId: string;
  webhookId: string;
  /** Deliveries with the same key (the source stream: one conversation) go out one at a time, in order. */
  orderKey: string;
  body: string;
  /** Epoch ms before which it is not attempted (a retry's backoff). */
  notBefore: number;
}

/** The receiver a delivery goes to: its app's webhook or provider, each with its own slots (ids are per app). */
export function receiverOf(delivery: Pick<QueuedDelivery, 'appId' | 'webhookId'>): string {
  return `${delivery.appId}:${delivery.webhookId}`;
}

/** What became of an attempt: finished (delivered, given up, disabled) or to be retried at a time. */
export type AttemptResult = { done: true } | { done: false; retryAt: number };

export interface DispatcherOptions {
  /** Attempts in flight per webhook. */
  concurrencyPerEndpoint: number;
  attempt(delivery: QueuedDelivery): Promise<AttemptResult>;
  onError(error: unknown, delivery: QueuedDelivery): void;
  /** Wait after an attempt that could not even be recorded (a store outage), before trying again. */
  errorRetryMs?: number;
  clock?: () => number;
}

/**
 * In-memory scheduling of the deliveries the store says are pending. Each webhook has its own
 * queue with a bounded number of attempts in flight, so a slow or failing endpoint holds only its
 * own slots; within a webhook, one lane per order key keeps a conversation's deliveries in order
 * (the next waits until the one before is delivered or given up, retries included).
 */
export class Dispatcher {
  private readonly endpoints = new Map<string, EndpointQueue>();
  /** Queued or in flight: a delivery is never in two places. */
  private readonly known = new Set<string>();
  private running = false;

  constructor(private readonly options: DispatcherOptions) {}

  enqueue(delivery: QueuedDelivery): void {
    if (this.known.has(delivery.deliveryId)) return;
    this.known.add(delivery.deliveryId);
    const key = receiverOf(delivery);
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = new EndpointQueue(this.options, (d) => this.known.delete(d.deliveryId), () => this.running);
      this.endpoints.set(key, endpoint);
    }
    endpoint.push(delivery);
  }

  /** Attempts begin only once the process can record them. */
  start(): void {
    this.running = true;
    for (const endpoint of this.endpoints.values()) endpoint.pump();
  }

  /** Stops starting attempts; those in flight finish (and are recorded). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.endpoints.values()].map((e) => e.idle()));
  }

  /** Deliveries waiting or in flight, for tests and the health answer. */
  size(): number {
    return this.known.size;
  }
}

class EndpointQueue {
  private readonly lanes = new Map<string, QueuedDelivery[]>();
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly options: DispatcherOptions,
    private readonly finished: (delivery: QueuedDelivery) => void,
    private readonly running: () => boolean,
  ) {}

  push(delivery: QueuedDelivery): void {
    const lane = this.lanes.get(delivery.orderKey);
    if (lane) lane.push(delivery);
    else this.lanes.set(delivery.orderKey, [delivery]);
    this.pump();
  }

  /** Starts every due lane head while slots are free; wakes up for the earliest one not yet due. */
  pump(): void {
    if (!this.running()) return;
    const now = (this.options.clock ?? Date.now)();
    let earliest = Infinity;
    for (const [key, lane] of this.lanes) {
      if (this.busy.size >= this.options.concurrencyPerEndpoint) return;
      if (this.busy.has(key)) continue;
      const head = lane[0]!;
      if (head.notBefore > now) {
        earliest = Math.min(earliest, head.notBefore);
        continue;
      }
      this.busy.add(key);
      const run = this.run(key, head);
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
    if (earliest < Infinity) this.wakeAt(earliest, now);
  }

  async idle(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.inFlight);
  }

  private async run(key: string, head: QueuedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      result = await this.options.attempt(head);
    } catch (error) {
      this.options.onError(error, head);
      result = { done: false, retryAt: (this.options.clock ?? Date.now)() + (this.options.errorRetryMs ?? 1_000) };
    }
    const lane = this.lanes.get(key)!;
    if (result.done) {
      lane.shift();
      this.finished(head);
      if (lane.length === 0) this.lanes.delete(key);
    } else head.notBefore = result.retryAt;
    this.busy.delete(key);
    this.pump();
  }

  private wakeAt(at: number, now: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, at - now));
    this.timer.unref();
  }
}
