import type { EventEnvelope } from '@chat/contracts';
import { RecentlyUsed } from '@chat/eventsourcing';
import type { DocumentStore, StoredRecord } from './documentStore.js';
import { sourceOfStream } from './projectionRuntime.js';

/** What the memory needs to know of a projection: which documents an event changes, and in which order. */
export interface WatchedProjection {
  eventTypes: readonly string[];
  documentIds(event: EventEnvelope): readonly string[];
  sourceOf?(event: EventEnvelope, documentId: string): string | null;
}

export interface DocumentMemoryOptions {
  /** Documents kept (least recently used dropped first). */
  capacity?: number;
  /**
   * The longest a remembered document is served without a read. Only a bound for what the watch
   * cannot see (a watch that fell behind, a position-less event); normally an entry is dropped the
   * moment an event changes its document.
   */
  maxAgeMs?: number;
  /**
   * The time up to which this process's watch is known to have seen every event on the topics that
   * feed these documents (`TopicFence.currentAsOf`). An entry still held then is current as of that
   * time, so `maxAgeMs` bounds how far the watch may lag rather than how old a read may be: while the
   * watch keeps up, a document is read once, not once every `maxAgeMs`. Without it, entries age from
   * their read.
   */
  watchCurrentAsOf?: () => number;
  now?: () => number;
}

interface Entry {
  record: StoredRecord | null;
  at: number;
}

/** The positions an event on Kafka has announced for a document that the store may not have yet. */
interface Awaited {
  positions: Record<string, number>;
  at: number;
}

/**
 * Read-model documents the request path reads on every command (users, groups, memberships), kept
 * in memory instead of read per request, and correct on every replica: every replica watches the
 * topics that feed those documents (`observe`, fed by its own consumer group, from the offsets the
 * projection had not yet applied when it started) and forgets a document the moment an event changes
 * it. A document read after that is kept only once the store shows that event applied (its
 * `_positions`), so a read that raced the projection is served once and read again next time, never
 * kept stale. Documents that do not exist are remembered too (a non-member stays a non-member).
 */
export class DocumentMemory {
  private readonly entries: RecentlyUsed<string, Entry>;
  private readonly awaited: RecentlyUsed<string, Awaited>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly watchCurrentAsOf: () => number;
  private readonly byType = new Map<string, WatchedProjection[]>();
  private hitCount = 0;
  private missCount = 0;

  constructor(
    private readonly store: Pick<DocumentStore, 'findMany'>,
    projections: readonly WatchedProjection[],
    options: DocumentMemoryOptions = {},
  ) {
    const capacity = options.capacity ?? 100_000;
    this.entries = new RecentlyUsed(capacity);
    this.awaited = new RecentlyUsed(capacity);
    this.maxAgeMs = options.maxAgeMs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.watchCurrentAsOf = options.watchCurrentAsOf ?? (() => Number.NEGATIVE_INFINITY);
    for (const projection of projections) {
      for (const type of projection.eventTypes) this.byType.set(type, [...(this.byType.get(type) ?? []), projection]);
    }
  }

  /** Reads served from memory and from the store so far. */
  get stats(): { hits: number; misses: number } {
    return { hits: this.hitCount, misses: this.missCount };
  }

  /**
   * The stored documents with these ids (absent ones are missing from the map), from memory where
   * current. `atLeast` names positions the caller knows were written (a client's consistency token):
   * a remembered document short of them is read again, and a read one short of them is answered but
   * not remembered (the caller may read again until the store has them).
   */
  async getMany(ids: readonly string[], atLeast?: Readonly<Record<string, number>>): Promise<Map<string, StoredRecord>> {
    const now = this.now();
    const watchedUpTo = this.watchCurrentAsOf();
    const found = new Map<string, StoredRecord>();
    const misses: string[] = [];
    for (const id of new Set(ids)) {
      const entry = this.entries.get(id);
      // Current as of its read, or as of the last time the watch was known to have seen everything.
      if (entry && now - Math.max(entry.at, watchedUpTo) < this.maxAgeMs && showsPositions(entry.record, atLeast)) {
        if (entry.record) found.set(id, entry.record);
        this.hitCount += 1;
      } else {
        misses.push(id);
      }
    }
    this.missCount += misses.length;
    const records = misses.length > 0 ? await this.store.findMany(misses) : new Map<string, StoredRecord>();
    for (const id of misses) {
      const record = records.get(id) ?? null;
      if (record) found.set(id, record);
      if (this.caughtUp(id, record, now) && showsPositions(record, atLeast)) this.entries.set(id, { record, at: now });
    }
    return found;
  }

  /** Events as they reach Kafka: every document they change is forgotten until the store has them. */
  observe(events: readonly EventEnvelope[]): void {
    const now = this.now();
    for (const event of events) {
      for (const projection of this.byType.get(event.type) ?? []) {
        for (const id of projection.documentIds(event)) {
          const source = projection.sourceOf ? projection.sourceOf(event, id) : sourceOfStream(event.streamId);
          const entry = this.entries.peek(id);
          if (source !== null && entry?.record && (entry.record._positions[source] ?? 0) >= event.version) continue;
          this.entries.delete(id);
          if (source === null) continue; // no order to wait for: the next read is kept as it is
          const awaited = this.awaited.peek(id) ?? { positions: {}, at: now };
          awaited.positions[source] = Math.max(awaited.positions[source] ?? 0, event.version);
          awaited.at = now;
          this.awaited.set(id, awaited);
        }
      }
    }
  }

  /** Whether a document just read shows every event announced for it (or the announcement is too old to wait for). */
  private caughtUp(id: string, record: StoredRecord | null, now: number): boolean {
    const awaited = this.awaited.peek(id);
    if (!awaited) return true;
    if (showsPositions(record, awaited.positions) || now - awaited.at >= this.maxAgeMs) {
      this.awaited.delete(id);
      return true;
    }
    return false;
  }
}

/** Whether a document (null: not stored) shows every one of these positions. */
export function showsPositions(record: StoredRecord | null, positions: Readonly<Record<string, number>> | undefined): boolean {
  if (!positions) return true;
  return Object.entries(positions).every(([source, version]) => (record?._positions[source] ?? 0) >= version);
}
