import type { DeliveryOutcome } from '@chat/contracts';
import { backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';

/** Exponential backoff with jitter (the platform's one retry delay), for as long as the window lasts. */
export interface RetryPolicy extends Backoff {
  /** How long after its first attempt a delivery is still retried, in ms (24 h by default). */
  windowMs: number;
}

export interface RetryDecision {
  outcome: DeliveryOutcome;
  /** Epoch ms of the next attempt, when the outcome is `retrying`. */
  nextAttemptAt?: number;
}

/**
 * What a receiver's answer means for a delivery (`status` undefined: no answer at all): 2xx is
 * delivered, 410 disables the webhook, anything else retries while the window lasts (and the
 * webhook retries at all).
 */
export function decideRetry(
  status: number | undefined,
  attemptInRound: number,
  roundStartedAt: number,
  now: number,
  policy: RetryPolicy,
  retryOnFailure: boolean,
  random: () => number = Math.random,
): RetryDecision {
  if (status !== undefined && status >= 200 && status < 300) return { outcome: 'delivered' };
  if (status === 410) return { outcome: 'gone' };
  if (!retryOnFailure) return { outcome: 'failed' };
  const nextAttemptAt = now + backoffDelay(attemptInRound, policy, random);
  return nextAttemptAt - roundStartedAt <= policy.windowMs ? { outcome: 'retrying', nextAttemptAt } : { outcome: 'failed' };
}
