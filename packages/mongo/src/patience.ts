import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads a projection of another service's data, waiting briefly while it is missing. Events cross
 * services asynchronously, so a user created a moment ago may not be projected here yet; a client
 * that creates a user and messages it at once should not see a 404 for that lag. Genuinely unknown
 * ids pay the wait once. `until` says what is worth waiting for (by default: any document); past
 * the timeout the last read is answered as it is.
 */
export async function readWithPatience<T>(
  read: () => Promise<T>,
  {
    timeoutMs = 1_000,
    intervalMs = 25,
    until = (value: T) => value !== null,
  }: { timeoutMs?: number; intervalMs?: number; until?: (value: T) => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value) || Date.now() >= deadline) return value;
    await sleep(intervalMs);
  }
}
