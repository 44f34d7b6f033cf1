import type { CommitStore, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';

export interface RelayOptions {
  /**
   * The safety sweep's period. Commits are normally published right after their append, and a failure
   * the process sees asks for a sweep at once (`requestSweep`), so the periodic sweep only catches what
   * another, vanished replica left behind. On FerretDB v1 every sweep is a scan of the commits collection,
   * so it must stay rare.
   */
  intervalMs?: number;
  /** Only commits older than this are swept, so the relay does not race a command still publishing. */
  graceMs?: number;
  batchSize?: number;
}

/**
 * Publishes commits that were appended but never marked published (the process died between
 * append and produce, or Kafka was down). Runs once at start-up, soon after any publish failure this
 * process reports, and periodically as a safety net.
 */
export function startRelay(
  store: CommitStore,
  publisher: EventPublisher,
  logger: Logger,
  options: RelayOptions = {},
): { stop(): Promise<void>; sweep(): Promise<number>; requestSweep(): void } {
  const intervalMs = options.intervalMs ?? 60_000;
  const graceMs = options.graceMs ?? 2_000;
  const batchSize = options.batchSize ?? 200;
  let running: Promise<number> | null = null;

  const sweepOnce = async (cutoff: Date): Promise<number> => {
    let published = 0;
    for (;;) {
      const commits = await store.findUnpublished(cutoff, batchSize);
      for (const commit of commits) {
        await publisher.publish(commit.events);
        await store.markPublished(commit.commitId);
        published += 1;
      }
      if (commits.length < batchSize) return published;
    }
  };

  const sweep = (cutoff = new Date(Date.now() - graceMs)): Promise<number> => {
    running ??= sweepOnce(cutoff)
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'relay sweep failed; will retry');
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  let requested: NodeJS.Timeout | null = null;
  let stopped = false;
  void sweep(new Date());
  return {
    sweep: () => sweep(),
    requestSweep() {
      // After the grace period, so the failed commit is old enough to be swept; one timer for a burst of failures.
      if (stopped || requested) return;
      requested = setTimeout(() => {
        requested = null;
        void sweep();
      }, graceMs + 100);
      requested.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (requested) clearTimeout(requested);
      await running;
    },
  };
}
