import { UnapplicableEventError } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { RecentlyUsed, backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { InMemoryDocumentStore, stripStoredFields } from './documentStore.js';
import type { DocumentStore, GuardedWrite, Stored, StoredRecord } from './documentStore.js';
import { DocumentTurns } from './documentTurns.js';
import { MongoDocumentStore } from './mongoDocumentStore.js';
import type { MongoDocumentStoreOptions } from './mongoDocumentStore.js';

/**
 * A read model as a pure function of events. One event may touch several documents (a reply updates
 * itself and its thread's first message); each document remembers, per source, the last stream
 * version applied to it.
 */
export interface Projection<Doc extends object, Event extends EventEnvelope = EventEnvelope> {
  name: string;
  /** The event types it reads: a family exported by `@chat/contracts`, never a hand-written list. */
  eventTypes: readonly Event['type'][];
  documentIds(event: Event): readonly string[];
  /**
   * Which ordered source this event belongs to for that document (a field-name-safe word). Defaults
   * to the event's stream: versions are ordered only within one stream.
   *
   * `null` applies the event without a position, for an evolve that makes re-applying it a no-op
   * whatever came between (a max-merge, a set addition): a document fed by thousands of streams then
   * keeps no position per stream, and an event that changes nothing writes nothing.
   */
  sourceOf?(event: Event, documentId: string): string | null;
  /**
   * True when this event brings the document into existence, so it cannot be stored yet (a new
   * message's own document). The runtime then inserts without reading first; if the document does
   * exist after all (a redelivery), the insert fails and the runtime reads and folds as usual.
   */
  creates?(event: Event, documentId: string): boolean;
  /** The document after the event; null removes it. Pure: no I/O, no clock. */
  evolve(document: Doc | null, event: Event, documentId: string): Doc | null;
}

/** Anything that takes a batch of events in order: one runtime, or a service's set of them. */
export interface EventApplier {
  apply(events: readonly EventEnvelope[]): Promise<void>;
  /**
   * Whether `apply` would act on this event at all (its type is read). Optional: an applier without it
   * is always called. With it, `allOf` calls only the appliers a batch concerns (ADR 0119).
   */
  handles?(event: EventEnvelope): boolean;
}

/** Read nothing, wrote nothing: what a round skips the store for. */
const NOTHING_FOUND: ReadonlyMap<string, StoredRecord> = new Map();
const NOTHING_MISSED: readonly string[] = [];

export interface ProjectionRuntimeOptions {
  /** Documents whose last known state this process keeps (wrote or read recently). */
  cacheSize?: number;
  /** Rounds of re-read and re-fold for documents that keep changing under us. */
  maxAttempts?: number;
}

/**
 * The wait before the n-th round after a lost compare-and-set (n ≥ 1): the platform's retry delay
 * (`backoffDelay`) with full jitter under a ceiling that doubles from 2 ms to 50 ms. Full, because the
 * race is over once lost (the winner's document is stored and the next round reads it), so only the
 * spread matters. Without it, a writer applying one event at a time (it remembers its own writes, so it
 * never reads) could win every race against one that must read before it writes, until the second ran
 * out of rounds (seen in the two-writer test under heavy machine load).
 */
const LOST_RACE_BACKOFF: Backoff = { baseMs: 2, maxMs: 50, jitter: 'full' };

export function lostRaceBackoffMs(round: number): number {
  return backoffDelay(round, LOST_RACE_BACKOFF);
}

/** A stream id as a source name: FerretDB rejects `.` and a leading `$` in field names. */
export function sourceOfStream(streamId: string): string {
  return streamId.replace(/[.$]/g, '_');
}

/** A document's state as far as the runtime knows: `rev` null means it is not stored. */
interface KnownState<Doc> {
  doc: Doc | null;
  positions: Record<string, number>;
  rev: number | null;
}

/** Where a round starts a document from, and whether that start was read from the store just now. */
interface Start<Doc> extends KnownState<Doc> {
  read: boolean;
}

/** The last state this process wrote or read, per document, least recently used first. */
class RecentDocuments<Doc> {
  private readonly entries: RecentlyUsed<string, KnownState<Doc> & { rev: number }>;

  constructor(capacity: number) {
    this.entries = new RecentlyUsed(capacity);
  }

  get(id: string): (KnownState<Doc> & { rev: number }) | undefined {
    return this.entries.get(id);
  }

  remember(id: string, state: KnownState<Doc> & { rev: number }): void {
    const known = this.entries.peek(id);
    // Two rounds of this process may finish out of order; the newer revision wins.
    if (known && known.rev > state.rev) return;
    this.entries.set(id, state);
  }

  forget(id: string): void {
    this.entries.delete(id);
  }
}

/**
 * The only way a read model is written. `apply` takes a batch of events (from a Kafka batch or a
 * command's own new events), groups them by the document they touch, reads each document once,
 * folds its events in batch order with the pure `evolve`, and writes each document once: new ones
 * inserted together, existing ones replaced or deleted under a compare-and-set on `_rev`.
 *
 * Two guards make any interleaving safe. The per-source position skips an event the document has
 * already seen, so redelivery and replay are no-ops. The `_rev` compare-and-set makes a concurrent
 * writer (the Kafka consumer and the request path, or two replicas) lose cleanly; the loser re-reads
 * that document and folds again, and the position guard drops what the winner already applied.
 *
 * A small cache of recently written states lets the consumer skip, without a read, the events the
 * service's own request path applied a moment ago. It is only ever a guess: a stale guess costs a
 * failed compare-and-set and a re-read, never a wrong document.
 *
 * Within one process, batches that touch the same document take turns (in arrival order, per
 * document): the request path publishes its events while it applies them, so without turns the
 * consumer would race it on every new document (a duplicate insert, then a re-read). Turns only
 * order work; the guards above still decide what is written.
 */
export class ProjectionRuntime<Doc extends object, Event extends EventEnvelope = EventEnvelope> implements EventApplier {
  private readonly handledTypes: ReadonlySet<string>;
  private readonly recent: RecentDocuments<Doc>;
  private readonly maxAttempts: number;
  private readonly turns = new DocumentTurns();

  constructor(
    private readonly projection: Projection<Doc, Event>,
    private readonly store: DocumentStore,
    options: ProjectionRuntimeOptions = {},
  ) {
    this.handledTypes = new Set(projection.eventTypes);
    this.recent = new RecentDocuments(options.cacheSize ?? 10_000);
    this.maxAttempts = options.maxAttempts ?? 20;
  }

  get name(): string {
    return this.projection.name;
  }

  handles(event: EventEnvelope): event is Event {
    return this.handledTypes.has(event.type);
  }

  async apply(events: readonly EventEnvelope[]): Promise<void> {
    let pending = this.eventsByDocument(events);
    if (pending.size === 0) return;
    const ids = [...pending.keys()];
    const release = await this.turns.take(ids);
    try {
      for (let round = 0; pending.size > 0; round++) {
        if (round >= this.maxAttempts) {
          throw new Error(`projection ${this.projection.name}: ${pending.size} document(s) kept changing, e.g. ${[...pending.keys()][0]}`);
        }
        // Two writers that lost to each other would meet again at once: the retry waits a little, at random.
        if (round > 0) await sleep(lostRaceBackoffMs(round));
        // After a lost race nothing known in advance is trusted: the retried documents are read.
        pending = await this.applyRound(pending, round > 0);
      }
    } finally {
      release();
    }
  }

  /**
   * The documents as this process last wrote or read them, read from the store only where it knows
   * none: what a step that follows `apply` (a derived index) needs, without a read per document it
   * has just written. Absent documents are left out.
   */
  async current(ids: readonly string[]): Promise<Map<string, Doc>> {
    const found = new Map<string, Doc>();
    const unknown: string[] = [];
    for (const id of new Set(ids)) {
      const known = this.recent.get(id);
      if (known?.doc) found.set(id, known.doc);
      else unknown.push(id);
    }
    const read = await this.store.findMany(unknown);
    for (const id of unknown) {
      const state = this.stateOf(read.get(id) ?? null);
      if (state.doc) found.set(id, state.doc);
    }
    return found;
  }

  /** The handled events of the batch per document id, each list in batch order. */
  private eventsByDocument(events: readonly EventEnvelope[]): Map<string, Event[]> {
    const byDocument = new Map<string, Event[]>();
    for (const event of events) {
      if (!this.handles(event)) continue;
      const ids = this.guarded(event, () => this.projection.documentIds(event));
      for (const id of new Set(ids)) {
        const list = byDocument.get(id);
        if (list) list.push(event);
        else byDocument.set(id, [event]);
      }
    }
    return byDocument;
  }

  /** One read-fold-write pass; returns the documents that must be folded again from a fresh read. */
  private async applyRound(pending: Map<string, Event[]>, mustRead: boolean): Promise<Map<string, Event[]>> {
    const starts = new Map<string, Start<Doc>>();
    const toRead: string[] = [];
    for (const [id, events] of pending) {
      const known = mustRead ? undefined : this.recent.get(id);
      if (known) {
        if (events.every((event) => this.alreadyApplied(known.positions, event, id))) continue;
        starts.set(id, { ...known, read: false });
      } else if (!mustRead && this.guarded(events[0]!, () => this.projection.creates?.(events[0]!, id) ?? false)) {
        starts.set(id, { doc: null, positions: {}, rev: null, read: false });
      } else {
        toRead.push(id);
      }
    }
    // Each store call is an async round of its own even when empty: a batch the cache answers (the
    // own topic read back, a send's new document) skips the ones it has nothing for (ADR 0119).
    const found = toRead.length > 0 ? await this.store.findMany(toRead) : NOTHING_FOUND;
    for (const id of toRead) starts.set(id, { ...this.stateOf(found.get(id) ?? null), read: true });

    const inserts: StoredRecord[] = [];
    const guardedWrites: GuardedWrite[] = [];
    const written = new Map<string, KnownState<Doc> & { rev: number }>();
    const retry = new Map<string, Event[]>();
    for (const [id, start] of starts) {
      const events = pending.get(id)!;
      const { state, applied } = this.fold(start, events, id);
      if (applied === 0) {
        if (start.rev !== null) this.recent.remember(id, { ...start, rev: start.rev });
        continue;
      }
      if (start.rev === null) {
        if (state.doc) {
          inserts.push(this.storedForm(id, state, 1));
          written.set(id, { ...state, rev: 1 });
        } else if (!start.read) {
          // Assumed absent and folded to nothing: only the store can say whether there was a document to remove.
          retry.set(id, events);
        }
      } else if (state.doc) {
        guardedWrites.push({ kind: 'replace', document: this.storedForm(id, state, start.rev + 1), expectedRev: start.rev });
        written.set(id, { ...state, rev: start.rev + 1 });
      } else {
        guardedWrites.push({ kind: 'delete', id, expectedRev: start.rev });
      }
    }

    // Existing documents first, new ones after: a new document usually hangs off an existing one (a
    // member off its group, a reply off its thread), and a reader must not see it before the change to
    // what it hangs off (a member counted in its group). There is no atomicity across documents.
    const lost = guardedWrites.length > 0 ? await this.store.writeGuarded(guardedWrites) : NOTHING_MISSED;
    const duplicates = inserts.length > 0 ? await this.store.insert(inserts) : NOTHING_MISSED;
    const missed = new Set([...duplicates, ...lost]);
    for (const id of missed) {
      this.recent.forget(id);
      retry.set(id, pending.get(id)!);
    }
    for (const write of guardedWrites) if (write.kind === 'delete' && !missed.has(write.id)) this.recent.forget(write.id);
    for (const [id, state] of written) if (!missed.has(id)) this.recent.remember(id, state);
    return retry;
  }

  private alreadyApplied(positions: Record<string, number>, event: Event, documentId: string): boolean {
    const source = this.sourceOf(event, documentId);
    // Without a position only the fold can tell (it writes nothing when nothing changes).
    return source !== null && (positions[source] ?? 0) >= event.version;
  }

  private sourceOf(event: Event, documentId: string): string | null {
    return this.projection.sourceOf ? this.projection.sourceOf(event, documentId) : sourceOfStream(event.streamId);
  }

  /** Folds the events the document has not seen yet; a removed document forgets its positions, as a deleted row would. */
  private fold(start: KnownState<Doc>, events: readonly Event[], documentId: string): { state: KnownState<Doc>; applied: number } {
    let { doc, positions } = start;
    let applied = 0;
    for (const event of events) {
      const source = this.guarded(event, () => this.sourceOf(event, documentId));
      if (source === null) {
        const next = this.guarded(event, () => this.projection.evolve(doc, event, documentId));
        if (JSON.stringify(next) === JSON.stringify(doc)) continue;
        doc = next;
        positions = doc ? positions : {};
        applied += 1;
        continue;
      }
      if ((positions[source] ?? 0) >= event.version) continue;
      doc = this.guarded(event, () => this.projection.evolve(doc, event, documentId));
      positions = doc ? { ...positions, [source]: event.version } : {};
      applied += 1;
    }
    return { state: { doc, positions, rev: start.rev }, applied };
  }

  private stateOf(stored: StoredRecord | null): KnownState<Doc> {
    if (!stored) return { doc: null, positions: {}, rev: null };
    return { doc: stripStoredFields(stored as Stored<Doc>), positions: stored._positions, rev: stored._rev };
  }

  private storedForm(id: string, state: KnownState<Doc>, rev: number): StoredRecord {
    return { ...(state.doc as Record<string, unknown>), _id: id, _positions: state.positions, _rev: rev };
  }

  /** A projection that throws on an event will throw on it every time: that event is unapplicable. */
  private guarded<T>(event: EventEnvelope, step: () => T): T {
    try {
      return step();
    } catch (error) {
      throw new UnapplicableEventError(event.id, `projection ${this.projection.name}: ${String(error)}`, { cause: error });
    }
  }
}

/**
 * Applies events as one batch to a projection over an in-memory store (a new one unless given) and
 * returns the store: how tests run a projection through the real guard and fold.
 */
export async function applyInMemory<Doc extends object, Event extends EventEnvelope>(
  projection: Projection<Doc, Event>,
  events: readonly EventEnvelope[],
  store = new InMemoryDocumentStore(),
): Promise<InMemoryDocumentStore> {
  await new ProjectionRuntime(projection, store).apply(events);
  return store;
}

/** A runtime over a MongoDB collection: the read models' everyday form. */
export function mongoProjection<Doc extends object, Event extends EventEnvelope>(
  db: Db,
  collectionName: string,
  projection: Projection<Doc, Event>,
  options: ProjectionRuntimeOptions & MongoDocumentStoreOptions = {},
): ProjectionRuntime<Doc, Event> {
  const { documentsPerInsert, ...runtime } = options;
  return new ProjectionRuntime(projection, new MongoDocumentStore(db, collectionName, documentsPerInsert !== undefined ? { documentsPerInsert } : {}), runtime);
}

/**
 * One `apply(events)` for several read models: each gets the whole batch and keeps what it handles.
 * They write different documents, so they run side by side. Only the appliers that handle an event of
 * the batch are called (an applier that cannot tell is always called): a send's batch reaches the few
 * read models that keep messages, not every one of the service's (ADR 0119).
 */
export function allOf(...appliers: readonly EventApplier[]): EventApplier {
  const concerned = (events: readonly EventEnvelope[]): EventApplier[] =>
    appliers.filter((applier) => applier.handles === undefined || events.some((event) => applier.handles!(event)));
  const combined: EventApplier = {
    async apply(events) {
      const called = concerned(events);
      if (called.length === 1) await called[0]!.apply(events);
      else if (called.length > 1) await Promise.all(called.map((applier) => applier.apply(events)));
    },
  };
  if (appliers.every((applier) => applier.handles !== undefined)) {
    combined.handles = (event) => appliers.some((applier) => applier.handles!(event));
  }
  return combined;
}
