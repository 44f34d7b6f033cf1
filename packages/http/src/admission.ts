import { ApiError } from '@chat/contracts';
import type { RequestListener, ServerResponse } from 'node:http';

/** How many requests a service works on at once, and how long the others may wait for a turn. */
export interface AdmissionLimits {
  /** Requests being processed at once; past it, requests wait in line. */
  maxInFlight: number;
  /** Requests waiting in line; past it, a request is refused at once. */
  maxQueued: number;
  /** A request that waited this long for a turn is refused instead of started. */
  maxQueueWaitMs: number;
}

/**
 * Bounds the work a service takes on, so that past its capacity it answers a fast
 * `503 ERR_SERVICE_UNAVAILABLE` with `Retry-After` instead of letting every request queue behind the
 * store until clients time out. The line is first come, first served; a request leaves the count when
 * its response is finished or its connection closes. The refusal changes nothing: no handler ran.
 */
export class Admission {
  private inFlight = 0;
  private readonly line: Array<{ admit: () => void; timer: NodeJS.Timeout }> = [];
  private refusedCount = 0;

  constructor(private readonly limits: AdmissionLimits) {}

  /** Requests refused so far (for metrics and tests). */
  get refused(): number {
    return this.refusedCount;
  }

  get active(): number {
    return this.inFlight;
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
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        this.admitNext();
      };
      res.once('finish', release);
      res.once('close', release);
      next();
    };
    if (this.inFlight < this.limits.maxInFlight && this.line.length === 0) return admitted();
    if (this.line.length >= this.limits.maxQueued) return this.refuse(res);
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

  private admitNext(): void {
    while (this.inFlight < this.limits.maxInFlight) {
      const entry = this.line.shift();
      if (!entry) return;
      clearTimeout(entry.timer);
      entry.admit();
    }
  }

  private refuse(res: ServerResponse): void {
    this.refusedCount += 1;
    const error = new ApiError('ERR_SERVICE_UNAVAILABLE', 'The service is at capacity; retry the request shortly.');
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
    res.end(JSON.stringify(error.toBody()));
  }
}

/** Defaults: enough concurrency for group commit to fill its batches, about a second of waiting at most. */
export const DEFAULT_ADMISSION: AdmissionLimits = { maxInFlight: 128, maxQueued: 512, maxQueueWaitMs: 1_000 };
