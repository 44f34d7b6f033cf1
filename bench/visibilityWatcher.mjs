// Watches for sampled messages to become visible to their receivers through the API, on a fixed
// budget of polls per second so that watching never becomes a load of its own.
//
// Every watched message waits in one list; each tick polls the message that was polled longest ago
// (round robin), never the same one twice within `minIntervalMs`, and never more than `budgetPerSecond`
// polls a second in all. With k messages pending each is polled every k/budget seconds; since k grows
// with the latency being measured (k ≈ samples/s × latency), the resolution stays a fixed fraction of
// the latency (samples/s ÷ budget: 20 samples/s on 200 polls/s resolve to a tenth of it), and an idle
// system costs no polls. A message counts as visible when a poll's answer shows it, at the time that
// answer arrived (so a figure errs by at most one poll's round trip on the slow side).
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @template Target
 * @param {object} options
 * @param {(target: Target) => Promise<boolean>} options.isVisible  one poll: does the receiver see it?
 * @param {number} options.budgetPerSecond
 * @param {number} [options.minIntervalMs]
 * @param {number} [options.maxInFlight]  polls outstanding at once
 */
export function createVisibilityWatcher({ isVisible, budgetPerSecond, minIntervalMs = 5, maxInFlight = 4 }) {
  /** @type {{ target: Target, deadline: number, polledAt: number, polling: boolean, resolve: (at: number | null) => void }[]} */
  const pending = [];
  const tickMs = 1000 / budgetPerSecond;
  let inFlight = 0;
  let polls = 0;
  let running = true;

  function finish(entry, at) {
    const index = pending.indexOf(entry);
    if (index >= 0) pending.splice(index, 1);
    entry.resolve(at);
  }

  async function pollOne(entry) {
    entry.polling = true;
    entry.polledAt = performance.now();
    inFlight += 1;
    polls += 1;
    try {
      if (await isVisible(entry.target)) finish(entry, performance.now());
    } catch {
      // A failed poll is one more poll; the deadline bounds the wait.
    } finally {
      inFlight -= 1;
      entry.polling = false;
    }
  }

  const loop = (async () => {
    while (running) {
      const now = performance.now();
      for (const entry of [...pending]) if (!entry.polling && now >= entry.deadline) finish(entry, null);
      if (inFlight < maxInFlight) {
        let next = null;
        for (const entry of pending) {
          if (entry.polling || now - entry.polledAt < minIntervalMs) continue;
          if (next === null || entry.polledAt < next.polledAt) next = entry;
        }
        if (next !== null) void pollOne(next);
      }
      await sleep(tickMs);
    }
  })();

  return {
    /**
     * Resolves with the time (performance.now()) an answer first showed `target` visible, or null
     * when none did before `deadline`.
     * @param {Target} target
     * @param {number} deadline  a performance.now() time
     * @returns {Promise<number | null>}
     */
    watch(target, deadline) {
      return new Promise((resolve) => pending.push({ target, deadline, polledAt: -Infinity, polling: false, resolve }));
    },
    /** Polls made so far. */
    polls: () => polls,
    async stop() {
      running = false;
      await loop;
      for (const entry of [...pending]) finish(entry, null);
    },
  };
}
