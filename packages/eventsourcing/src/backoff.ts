/**
 * The one retry delay of the platform: the wait before the n-th retry (n ≥ 1) is drawn at random under
 * a ceiling that doubles from `baseMs` up to `maxMs`, so a burst of losers does not retry in lock-step.
 * How much of the ceiling is drawn is the use's choice (`jitter`):
 *
 * - `equal` (the default): between half the ceiling and the ceiling. Right where the retry waits for
 *   something that is failing or not there yet (a produce while Kafka is away, a paused partition, a
 *   restarting consumer, a webhook or push receiver, a read model that has not applied a write, a
 *   command that lost a race on a stream or a directory to another writer that may still be busy): the
 *   half that is not drawn is the least wait, so retries stay spaced out even on an unlucky draw.
 * - `full`: between 0 and the ceiling. Right where the race is over the moment it is lost and only the
 *   spread matters (the projection runtime's lost compare-and-set: the other writer's document is
 *   stored and is read at once), so the quickest retry is also allowed.
 */
export interface Backoff {
  /** Ceiling of the first retry's delay, in ms. */
  baseMs: number;
  /** No ceiling grows past this, in ms. */
  maxMs: number;
  /** How much of the ceiling is drawn: `equal` (half to all; the default) or `full` (none to all). */
  jitter?: 'equal' | 'full';
}

/** The delay before the `attempt`-th retry (1 for the first), in whole ms. */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  const least = backoff.jitter === 'full' ? 0 : ceiling / 2;
  return Math.round(least + random() * (ceiling - least));
}
