import type { CommitStore, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';

export interface RelayOptions {
  intervalMs?: number;
  /** Only commits older than this are swept, so the relay does not race a command still publishing. */
  graceMs?: number;
  batchSize?: number;
}

/**
 * Publishes commits that were appended but never marked published (the process died between
 * append and produce, or Kafka was down). Runs once at start-up, then periodically.
 */
export function startRelay(
  store: CommitStore,
  publisher: EventPublisher,
  logger: Logger,
  options: RelayOptions = {},
): { stop(): Promise<void>; sweep(): Promise<number> } {
  const intervalMs = options.intervalMs ?? 5_000;
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
  void sweep(new Date());
  return {
    sweep: () => sweep(),
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
