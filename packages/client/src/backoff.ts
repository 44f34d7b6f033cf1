export interface BackoffOptions {
  /** The first retry's ceiling, in ms (default 500). */
  baseMs?: number;
  /** The ceiling no retry waits past, in ms (default 30 000). */
  capMs?: number;
  /** A number in [0, 1); `Math.random` unless a test pins it. */
  random?: () => number;
}

/**
 * Exponential backoff with full jitter: attempt n waits a uniform random time in
 * [0, min(cap, base · 2ⁿ)). The jitter spreads the reconnects of many clients that lost the same
 * server at once, so they do not come back in one wave.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 500;
  const cap = options.capMs ?? 30_000;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 30));
  return Math.floor((options.random ?? Math.random)() * ceiling);
}
