import { ApiError } from '@chat/contracts';
import type { RequestListener, ServerResponse } from 'node:http';

/** How many requests a service works on at once, and how long the others may wait for a turn. */
export interface AdmissionLimits {
  /** The most requests processed at once; the working limit moves between `minInFlight` and this. */
  maxInFlight: number;
  /** The working limit never goes below this. */
  minInFlight: number;
  /**
   * The processing time the limit aims at: a request that took longer shrinks the limit (the store
   * is saturated and more concurrency only lengthens every request); quick ones at a full limit grow it.
   */
  targetLatencyMs: number;
  /** Requests waiting in line; past it, a request is refused at once. */
  maxQueued: number;
  /** A request that waited this long for a turn is refused instead of started. */
  maxQueueWaitMs: number;
}

/** A slow request shrinks the limit by this factor, at most once per interval (one burst counts once). */
const DECREASE_FACTOR = 0.9;
const DECREASE_INTERVAL_MS = 100;

/**
 * Bounds the work a service takes on, so that past its capacity it answers a fast
 * `503 ERR_SERVICE_UNAVAILABLE` with `Retry-After` instead of letting every request queue behind the
 * store until clients time out. By Little's law a fixed bound is either too low for a fast service or
 * lets a slow one build seconds of latency, so the bound adapts (additive increase, multiplicative
 * decrease on the processing time, as TCP does on loss). The line is first come, first served; a
 * request leaves the count when its response is finished or its connection closes. A refusal changes
 * nothing: no handler ran.
 */
export class Admission {
  private inFlight = 0;
  private currentLimit: number;
  private lastDecrease = 0;
  /** Completions per second over the last full second (the line's expected speed). */
  private completionRate = 0;
  private windowStart: number;
  private completedInWindow = 0;
  private readonly line: Array<{ admit: () => void; timer: NodeJS.Timeout }> = [];
  private refusedCount = 0;

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.currentLimit = limits.maxInFlight;
    this.windowStart = now();
  }

  /** Requests refused so far (for metrics and tests). */
  get refused(): number {
    return this.refusedCount;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Requests waiting in line. */
  get waiting(): number {
    return this.line.length;
  }

  /** The working bound on requests processed at once. */
  get limit(): number {
    return Math.floor(this.currentLimit);
  }

  /** `listener` behind the limits; `/health` always goes straight through. */
  wrap(listener: RequestListener): RequestListener {
    return (req, res) => {
      if (req.url === '/health' || req.url?.startsWith('/health?')) return void listener(req, res);
      this.admit(res, () => void listener(req, res));
    };
  }

  private admit(res: ServerResponse, next: () => void): void {
    const admitted = (): void => {
      this.inFlight += 1;
      const started = this.now();
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        const finished = this.now();
        this.adapt(finished - started);
        this.countCompletion(finished);
        this.inFlight -= 1;
        this.admitNext();
      };
      res.once('finish', release);
      res.once('close', release);
      next();
    };
    if (this.inFlight < this.limit && this.line.length === 0) return admitted();
    // Refused at once when the line is full, or longer than the service gets through in the wait allowed.
    if (this.line.length >= this.limits.maxQueued || this.expectedWaitMs(this.line.length + 1) > this.limits.maxQueueWaitMs) {
      return this.refuse(res);
    }
    const entry = {
      admit: admitted,
      timer: setTimeout(() => {
        const index = this.line.indexOf(entry);
        if (index >= 0) this.line.splice(index, 1);
        this.refuse(res);
      }, this.limits.maxQueueWaitMs),
    };
    // A client that gave up while waiting frees its place.
    res.once('close', () => {
      const index = this.line.indexOf(entry);
      if (index < 0) return;
      this.line.splice(index, 1);
      clearTimeout(entry.timer);
    });
    this.line.push(entry);
  }

  private countCompletion(at: number): void {
    this.completedInWindow += 1;
    const elapsed = at - this.windowStart;
    if (elapsed >= 1_000) {
      this.completionRate = (this.completedInWindow * 1_000) / elapsed;
      this.completedInWindow = 0;
      this.windowStart = at;
    }
  }

  /** How long the n-th in line would wait at the recent pace (unknown before the first full second: 0). */
  private expectedWaitMs(position: number): number {
    return this.completionRate > 0 ? (position * 1_000) / this.completionRate : 0;
  }

  private adapt(processingMs: number): void {
    if (processingMs > this.limits.targetLatencyMs) {
      const now = this.now();
      if (now - this.lastDecrease < DECREASE_INTERVAL_MS) return;
      this.lastDecrease = now;
      this.currentLimit = Math.max(this.limits.minInFlight, this.currentLimit * DECREASE_FACTOR);
    } else if (this.inFlight >= this.limit) {
      // About one more per limit's worth of quick completions: +1 per round trip at full use.
      this.currentLimit = Math.min(this.limits.maxInFlight, this.currentLimit + 1 / this.limit);
    }
  }

  private admitNext(): void {
    while (this.inFlight < this.limit) {
      const entry = this.line.shift();
      if (!entry) return;
      clearTimeout(entry.timer);
      entry.admit();
    }
  }

  private refuse(res: ServerResponse): void {
    this.refusedCount += 1;
    refuseUnavailable(res, 'The service is at capacity; retry the request shortly.', 1);
  }
}

/** Answers `503 ERR_SERVICE_UNAVAILABLE` with `Retry-After` before any handler ran: nothing changed. */
export function refuseUnavailable(res: ServerResponse, message: string, retryAfterSeconds: number): void {
  const error = new ApiError('ERR_SERVICE_UNAVAILABLE', message);
  res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(retryAfterSeconds) });
  res.end(JSON.stringify(error.toBody()));
}

/**
 * Defaults: up to 128 at once when the store keeps up (enough for group commit to fill its batches),
 * shrinking toward 16 while requests take more than a second, and about two seconds of waiting at most.
 */
export const DEFAULT_ADMISSION: AdmissionLimits = {
  maxInFlight: 128,
  minInFlight: 16,
  targetLatencyMs: 1_000,
  maxQueued: 512,
  maxQueueWaitMs: 2_000,
};
