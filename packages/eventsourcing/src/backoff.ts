/**
 * Exponential backoff with full jitter, the one retry delay of the platform: conflicts, publish
 * retries and consumer pauses all wait this way, so a burst of losers does not retry in lock-step.
 */
export interface Backoff {
  /** Delay before the first retry, in ms. */
  baseMs: number;
  /** No delay grows past this, in ms. */
  maxMs: number;
}

export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
