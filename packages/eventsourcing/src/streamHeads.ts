import { RecentlyUsed } from './recentlyUsed.js';
import type { CommitStore, StreamHead } from './store.js';

/**
 * Streams younger than this are never given a saved head. A cold load without one follows the
 * stream's commits by `_id` from its first: at most this many reads more than with a head, and only
 * after a restart or on another replica. Saving one costs an update per new stream instead, the
 * largest write of an import of thousands of users, groups or conversations that never grow.
 */
export const SAVED_HEAD_MIN_VERSION = 4;

/**
 * Heads saved per store command. A save runs in the background, but on a store with one write lock
 * (FerretDB, ADR 0046) every send's writes queue behind the command in flight: fifty heads in one
 * command held the lock for about 20 ms every save interval, a stall for each send that needed the
 * store meanwhile (ADR 0091). Smaller commands, one after the other, let the sends' writes in between;
 * eight hold the lock about as long as the longest commands a send meets anyway (≈ 4–6 ms quiet).
 */
export const HEADS_PER_SAVE_COMMAND = 8;

/**
 * The heads (version + snapshot) of streams this process appended to or loaded, most recently used
 * last, so a busy stream's next command reads nothing from the store. Safe with several writers: a
 * stale head makes the append collide on the stream position, the entry is dropped and the command
 * loads again. Heads that changed are saved in the background in groups, so a cold load after a
 * restart finds a recent head by `_id` instead of scanning.
 */
export class StreamHeads {
  private readonly heads: RecentlyUsed<string, StreamHead>;
  private readonly changed = new Map<string, StreamHead>();
  private saving: Promise<void> | null = null;

  constructor(
    private readonly store: CommitStore,
    capacity = 50_000,
  ) {
    this.heads = new RecentlyUsed(capacity);
  }

  get(streamId: string): StreamHead | undefined {
    return this.heads.get(streamId);
  }

  remember(streamId: string, head: StreamHead, changed: boolean): void {
    this.heads.set(streamId, head);
    if (changed && head.version >= SAVED_HEAD_MIN_VERSION) this.changed.set(streamId, head);
  }

  forget(streamId: string): void {
    this.heads.delete(streamId);
  }

  /**
   * Saves the heads changed since the last save (of streams old enough), `HEADS_PER_SAVE_COMMAND` at
   * a time; concurrent calls share one save.
   */
  save(): Promise<void> {
    this.saving ??= (async () => {
      while (this.changed.size > 0) {
        const round = [...this.changed];
        this.changed.clear();
        for (let from = 0; from < round.length; from += HEADS_PER_SAVE_COMMAND) {
          try {
            await this.store.saveHeads(new Map(round.slice(from, from + HEADS_PER_SAVE_COMMAND)));
          } catch (error) {
            // Keep the unsaved ones for the next save; a newer head of the same stream wins.
            for (const [streamId, head] of round.slice(from)) if (!this.changed.has(streamId)) this.changed.set(streamId, head);
            throw error;
          }
        }
      }
    })().finally(() => {
      this.saving = null;
    });
    return this.saving;
  }
}
