import { setTimeout as sleep } from 'node:timers/promises';
import { RecentlyUsed } from './recentlyUsed.js';
import { commitSlot } from './store.js';
import type { CommitStore, JournalEntry } from './store.js';

/** After evidence of another writer on the store, how long entries are released right after their produce. */
const SHARED_MODE_MS = 10 * 60_000;
/** How often a produce waiting on another process's journal entries looks at them again. */
const POLL_MS = 5;
/** How many of other processes' commits published here (after a vain wait) are remembered, never waited on again. */
const REPUBLISHED_KEPT = 10_000;

/**
 * What an outbox knows of the other processes appending to its store (replicas, or a predecessor
 * that died): whether there are any lately, and how to wait for one to put its commit on Kafka
 * instead of publishing that commit a second time.
 */
export class OtherWriters {
  private sharedUntil = 0;
  /** Slots of other processes' commits this process published after waiting for them in vain. */
  private readonly republished = new RecentlyUsed<string, true>(REPUBLISHED_KEPT);

  constructor(
    private readonly store: CommitStore,
    private readonly waitMs: number,
    private readonly retry: <T>(read: () => Promise<T>) => Promise<T>,
  ) {}

  /** Another process writes this store's streams (an append lost a race, a foreign journal entry). */
  seen(): void {
    this.sharedUntil = Date.now() + SHARED_MODE_MS;
  }

  /** Another writer was seen lately: it may be waiting for this process's releases. */
  get active(): boolean {
    return Date.now() < this.sharedUntil;
  }

  /** Notes another writer if the journal holds an entry none of `own` names (a cheap look at ids). */
  async look(own: (id: number) => boolean): Promise<void> {
    const ids = await this.store.unreleased();
    if (ids.some((id) => !own(id))) this.seen();
  }

  /**
   * Of these predecessor entries, those to publish here. Another process's entry written less than
   * `waitMs` ago is looked at again until that process released it (its commits are on Kafka, as a
   * live process does right after its produce) or until `waitMs` after it was written; older ones
   * (a process slow to reach Kafka, or gone) and those still there go here, and are remembered so
   * that their commits are never waited for again. Entries of this process (`own`) stay.
   */
  async toPublish(entries: readonly JournalEntry[], own: (id: number) => boolean): Promise<JournalEntry[]> {
    const fresh = entries
      .map((entry) => ({ ...entry, commits: entry.commits.filter((commit) => !this.republished.has(commitSlot(commit))) }))
      .filter((entry) => entry.commits.length > 0);
    if (fresh.every((entry) => own(entry.id))) return fresh;
    this.seen();
    // Also bounded by this process's clock, should the other's run ahead.
    const cap = Date.now() + this.waitMs;
    const young = (entry: JournalEntry) => (entry.writtenAt?.getTime() ?? 0) + this.waitMs > Date.now() && Date.now() < cap;
    const released = new Set<number>();
    let waiting = fresh.filter((entry) => !own(entry.id) && young(entry));
    while (waiting.length > 0) {
      await sleep(POLL_MS);
      const ids = waiting.map((entry) => entry.id);
      const left = new Set(await this.retry(() => this.store.unreleased(ids)));
      for (const id of ids) if (!left.has(id)) released.add(id);
      waiting = waiting.filter((entry) => left.has(entry.id) && young(entry));
    }
    const publish = fresh.filter((entry) => !released.has(entry.id));
    for (const entry of publish) if (!own(entry.id)) for (const commit of entry.commits) this.republished.set(commitSlot(commit), true);
    return publish;
  }
}
