// A send-sized insert written over and over into `collection`, one at a time with 1 ms between: how long
// a send's own write waits while something else holds the store's one write lock (ADR 0091, 0094).
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts probing; `stop()` ends it and returns how long the probes took, during a span and away from it. */
export function startProbeWrites(collection) {
  const probes = [];
  let probing = true;
  let n = 0;
  const loop = (async () => {
    while (probing) {
      const started = performance.now();
      await collection.insertOne({ _id: n++, text: 'a send-sized write' });
      probes.push({ started, took: performance.now() - started });
      await sleep(1);
    }
  })();
  const sorted = (wanted) => probes.filter(wanted).map((p) => p.took).sort((a, b) => a - b);
  return {
    async stop() {
      probing = false;
      await loop;
      return {
        /** Probe times (ms, ascending) of the writes that overlapped [from, to]. */
        during: (from, to) => sorted((p) => p.started + p.took > from && p.started < to),
        /** Probe times of the writes that ended more than 5 ms before `from` or began 5 ms after `to`. */
        away: (from, to) => sorted((p) => p.started + p.took < from - 5 || p.started > to + 5),
      };
    },
  };
}
