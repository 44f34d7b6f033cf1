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

  /** Saves the heads changed since the last save (of streams old enough); concurrent calls share one save. */
  save(): Promise<void> {
    this.saving ??= (async () => {
      while (this.changed.size > 0) {
        const batch = new Map(this.changed);
        this.changed.clear();
        try {
          await this.store.saveHeads(batch);
        } catch (error) {
          // Keep them for the next save; a newer head of the same stream wins.
          for (const [streamId, head] of batch) if (!this.changed.has(streamId)) this.changed.set(streamId, head);
          throw error;
        }
      }
    })().finally(() => {
      this.saving = null;
    });
    return this.saving;
  }
}
