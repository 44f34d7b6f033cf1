import { RecentlyUsed } from '@chat/eventsourcing';

export interface FailureBudgetOptions {
  /** Failures a source may make at once before it is refused. */
  burst: number;
  /** Failures a source earns back per minute. */
  perMinute: number;
  /** Sources remembered; past it the least recently failing one is forgotten (memory stays bounded). */
  capacity: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Failed authentications per source (client address), as a token bucket each: a failure costs one
 * token, tokens come back at `perMinute`, and a source without a whole token is refused before its
 * next attempt is looked up anywhere. An attempt whose outcome is not known yet (its key is being
 * looked up) holds a token (`take`) and gives it back if it succeeds (`refund`): counting only
 * finished failures would let a source with n requests in flight through n times per token.
 * Kept in this process only: consulting Redis for a guesser would hand the guesser the very cost
 * this budget exists to spare the tenants (ADR 0040).
 */
export class FailureBudget {
  private readonly buckets: RecentlyUsed<string, Bucket>;
  private readonly now: () => number;
  private readonly perMs: number;

  constructor(private readonly options: FailureBudgetOptions) {
    if (!(options.burst >= 1) || !(options.perMinute > 0)) throw new RangeError('burst must be ≥ 1 and perMinute > 0');
    this.buckets = new RecentlyUsed(options.capacity);
    this.now = options.now ?? Date.now;
    this.perMs = options.perMinute / 60_000;
  }

  /** Seconds until `source` may try again, or 0 when it may try now. */
  retryAfter(source: string): number {
    const bucket = this.buckets.peek(source);
    return bucket ? this.wait(this.tokensOf(bucket, this.now())) : 0;
  }

  /** Holds one failure of `source` for an attempt about to be checked: 0, or (taking nothing) the seconds to wait. */
  take(source: string): number {
    const now = this.now();
    const bucket = this.buckets.get(source);
    const tokens = bucket ? this.tokensOf(bucket, now) : this.options.burst;
    if (tokens < 1) return this.wait(tokens);
    this.buckets.set(source, { tokens: tokens - 1, at: now });
    return 0;
  }

  /** Counts one failed authentication of `source` (an attempt that held no token). */
  fail(source: string): void {
    const now = this.now();
    const bucket = this.buckets.get(source);
    this.buckets.set(source, { tokens: Math.max(0, (bucket ? this.tokensOf(bucket, now) : this.options.burst) - 1), at: now });
  }

  /** Gives back the token an attempt held: it authenticated. */
  refund(source: string): void {
    const bucket = this.buckets.peek(source);
    if (bucket) bucket.tokens = Math.min(this.options.burst, bucket.tokens + 1);
  }

  private wait(tokens: number): number {
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.perMs / 1_000));
  }

  private tokensOf(bucket: Bucket, now: number): number {
    return Math.min(this.options.burst, bucket.tokens + (now - bucket.at) * this.perMs);
  }
}
