import type { EventEnvelope, EventSchemaRegistry } from '@chat/contracts';
import { RecentlyUsed } from './recentlyUsed.js';
import type { CommitStore } from './store.js';

/**
 * How far back an own apply that continues another process's commits re-applies them, in versions,
 * when this process does not remember applying the stream itself.
 */
export const FOREIGN_PREDECESSOR_VERSIONS = 16;

/** Streams whose own last apply a process remembers (as many as its stream heads). */
const REMEMBERED_STREAMS = 50_000;

/**
 * The commits of other processes that a turn continues, to apply before its own (ADR 0157). Another
 * replica applies its commit to the read models after appending it, as this process does; a later
 * commit applied first would move each document's position past it, and the document would then
 * skip it as already seen, for good. So an own apply that continues foreign commits applies them
 * first (the read models skip what is applied already): those since this process's own last apply
 * of the stream, which its lane applied in order, or the last `FOREIGN_PREDECESSOR_VERSIONS`
 * versions where it remembers none (an older commit's own apply has long landed). Read by key,
 * upcast to the shapes read models take.
 */
export class ForeignPredecessors {
  /** Per stream, the last version this process appended and applied to its read models itself. */
  private readonly ownApplied = new RecentlyUsed<string, number>(REMEMBERED_STREAMS);

  constructor(
    private readonly store: Pick<CommitStore, 'commitsStartingBetween'>,
    private readonly schemas: Pick<EventSchemaRegistry, 'upcast'>,
  ) {}

  /** This process applied the stream itself up to `version` (its own turn, in its lane's order). */
  appliedHere(streamId: string, version: number): void {
    this.ownApplied.set(streamId, version);
  }

  /** The foreign commits a turn loaded at `loadedVersion` continues, for its apply to take first. */
  async before(streamId: string, loadedVersion: number): Promise<EventEnvelope[]> {
    const appliedHere = this.ownApplied.get(streamId) ?? 0;
    const from = Math.max(appliedHere + 1, loadedVersion - FOREIGN_PREDECESSOR_VERSIONS + 1, 1);
    const stored = await this.store.commitsStartingBetween(streamId, from, loadedVersion);
    return stored.map((event) => this.schemas.upcast(event));
  }
}
