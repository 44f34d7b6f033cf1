import { RecentlyUsed } from '@chat/eventsourcing';
import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';
import { idOfWrite } from '@chat/mongo';

/**
 * A kind of document that moved to another collection (ADR 0089: the message copies into the one
 * collection a run's inserts share), read without a migration: new documents go to `current`; a read
 * looks in both, `current` first (a creation redelivered after the move stores its document there
 * again, and every later event of it is redelivered after it, so that one is as new as the old); a
 * guarded write goes where its document was last read from.
 * A write this process has no such memory of goes to `current`, and if it loses there it is answered
 * lost, so the runtime reads the document (learning where it is) and writes again.
 */
export class MovedStore implements DocumentStore {
  /** Ids last read from `before`, where their writes go. */
  private readonly inBefore = new RecentlyUsed<string, true>(10_000);

  constructor(
    private readonly current: DocumentStore,
    private readonly before: DocumentStore,
  ) {}

  async findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    if (ids.length === 0) return new Map();
    const [found, older] = await Promise.all([this.current.findMany(ids), this.before.findMany(ids)]);
    for (const id of ids) {
      const old = older.get(id);
      if (old && !found.has(id)) {
        found.set(id, old);
        this.inBefore.set(id, true);
      } else {
        this.inBefore.delete(id);
      }
    }
    return found;
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    return this.current.insert(documents);
  }

  async writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    const isBefore = (write: GuardedWrite) => this.inBefore.peek(idOfWrite(write)) === true;
    const [lostBefore, lostCurrent] = await Promise.all([this.before.writeGuarded(writes.filter(isBefore)), this.current.writeGuarded(writes.filter((write) => !isBefore(write)))]);
    for (const id of lostBefore) this.inBefore.delete(id);
    return [...lostBefore, ...lostCurrent];
  }
}
