import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads a projection of another service's data, waiting briefly while it is missing. Events cross
 * services asynchronously, so a user created a moment ago may not be projected here yet; a client
 * that creates a user and messages it at once should not see a 404 for that lag. Genuinely unknown
 * ids pay the wait once.
 */
export async function readWithPatience<T>(
  read: () => Promise<T | null>,
  { timeoutMs = 1_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null || Date.now() >= deadline) return value;
    await sleep(intervalMs);
  }
}
