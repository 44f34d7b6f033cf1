import type { EventEnvelope } from '@chat/contracts';
import { Coalescer } from '@chat/eventsourcing';
import type { EventApplier } from './projectionRuntime.js';

/** The most runs one call applies together. */
const MAX_RUNS_PER_CALL = 16;

/**
 * An applier whose concurrent runs share one call (ADR 0067): while a call is in flight, the runs
 * that arrive (a consumer's partitions, kafkajs hands them out together; the request path's own
 * events) wait for it and then go together, in arrival order, as one batch. An idle applier's call
 * starts once the current turn of the event loop is done (the `Coalescer`'s `gatherTurn`, ADR 0129):
 * kafkajs hands every partition's batch of a fetch to its workers in one turn, so the runs of one fetch
 * go in one call instead of the first alone and the others after it. No timer: a lone run goes right
 * after the turn that submitted it. Each read model then reads and writes each document once for all of them and sends one
 * command per collection instead of one per run, which on this store is most of a small run's cost
 * (about 1.1 ms a command, ADR 0048) and, under one write lock, what the later runs queued behind.
 *
 * A run applied with others has the outcome it would have had alone: every read model applies any
 * batching of the same events alike (the runtime's positions), and when a combined call fails each
 * run is applied again on its own, so an event that cannot be applied fails only the run that holds
 * it (its consumer retries or isolates it) and the others succeed.
 */
export function coalescedRuns(applier: EventApplier): EventApplier {
  const runs = new Coalescer<readonly EventEnvelope[], { failed: unknown } | undefined>(async (_key, batches) => {
    if (batches.length === 1) {
      await applier.apply(batches[0]!);
      return [undefined];
    }
    try {
      await applier.apply(batches.flat());
      return batches.map(() => undefined);
    } catch {
      const outcomes = await Promise.allSettled(batches.map((events) => applier.apply(events)));
      return outcomes.map((outcome) => (outcome.status === 'rejected' ? { failed: outcome.reason as unknown } : undefined));
    }
  }, { maxBatch: MAX_RUNS_PER_CALL, gatherTurn: true });
  return {
    async apply(events) {
      const outcome = await runs.submit('runs', events);
      if (outcome) throw outcome.failed;
    },
  };
}
