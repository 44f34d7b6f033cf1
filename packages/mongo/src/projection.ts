import type { EventEnvelope } from '@chat/contracts';
import type { Collection, Db, Document } from 'mongodb';

/** A stored read-model document as the writer sees it: string id, guard fields, anything else. */
type StoredRecord = StoredProjectionFields & Record<string, unknown>;
import { isDuplicateKeyError } from './connect.js';

/**
 * A read model as a pure function of events. One event may touch several documents (a message
 * updates both participants' conversations); each document remembers, per source, the last
 * stream version applied to it.
 */
export interface Projection<Doc extends object, Event extends EventEnvelope = EventEnvelope> {
  name: string;
  canHandle(event: EventEnvelope): event is Event;
  documentIds(event: Event): string[];
  /** Which ordered source this event belongs to for that document (a field-name-safe word). */
  sourceOf(event: Event, documentId: string): string;
  /** The document after the event; null removes it. Pure: no I/O, no clock. */
  evolve(document: Doc | null, event: Event, documentId: string): Doc | null;
}

export interface StoredProjectionFields {
  _id: string;
  /** Last applied stream version per source: the guard that makes redelivery and replay no-ops. */
  _positions: Record<string, number>;
  /** Compare-and-set counter: concurrent appliers of the same document serialise on it. */
  _rev: number;
}

export type Stored<Doc extends object> = Doc & StoredProjectionFields;

export function stripStoredFields<Doc extends object>(stored: Stored<Doc>): Doc {
  const { _id, _positions, _rev, ...doc } = stored;
  void _id;
  void _positions;
  void _rev;
  return doc as unknown as Doc;
}

/**
 * Applies events to a projection's collection. Both the Kafka consumer and a service's own
 * read-your-writes path call this, in any order and any number of times: an event whose version
 * is not newer than the document's position for its source changes nothing.
 */
export class GuardedProjectionWriter<Doc extends object> {
  /** Loosely typed on purpose: the driver's generics cannot follow a generic document type. */
  private readonly collection: Collection<StoredRecord>;

  constructor(
    db: Db,
    collectionName: string,
    private readonly projection: Projection<Doc, EventEnvelope>,
    private readonly maxAttempts = 20,
  ) {
    this.collection = db.collection<StoredRecord>(collectionName);
  }

  /** The collection typed for queries by the read side (documents keyed by string ids). */
  documents(): Collection<Stored<Doc>> {
    return this.collection as unknown as Collection<Stored<Doc>>;
  }

  handles(event: EventEnvelope): boolean {
    return this.projection.canHandle(event);
  }

  async apply(event: EventEnvelope): Promise<void> {
    if (!this.projection.canHandle(event)) return;
    for (const documentId of this.projection.documentIds(event)) {
      await this.applyToDocument(event, documentId);
    }
  }

  private async applyToDocument(event: EventEnvelope, documentId: string): Promise<void> {
    const source = this.projection.sourceOf(event, documentId);
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const current = (await this.collection.findOne({ _id: documentId })) as Stored<Doc> | null;
      const position = current?._positions[source] ?? 0;
      if (position >= event.version) return;

      const next = this.projection.evolve(current ? stripStoredFields(current) : null, event, documentId);
      if (!current) {
        if (!next) return;
        try {
          await this.collection.insertOne({
            ...next,
            _id: documentId,
            _positions: { [source]: event.version },
            _rev: 1,
          });
          return;
        } catch (error) {
          if (isDuplicateKeyError(error)) continue;
          throw error;
        }
      }

      const guard = { _id: documentId, _rev: current._rev };
      if (!next) {
        const removed = await this.collection.deleteOne(guard);
        if (removed.deletedCount === 1) return;
        continue;
      }
      const replaced = await this.collection.replaceOne(guard, {
        ...next,
        _positions: { ...current._positions, [source]: event.version },
        _rev: current._rev + 1,
      });
      if (replaced.matchedCount === 1) return;
    }
    throw new Error(`projection ${this.projection.name}: document ${documentId} kept changing under event ${event.id}`);
  }
}

export type IndexSpec = { keys: Document; options?: { unique?: boolean; name?: string } };

export async function ensureIndexes(db: Db, collectionName: string, specs: readonly IndexSpec[]): Promise<void> {
  const collection = db.collection(collectionName);
  for (const spec of specs) await collection.createIndex(spec.keys, spec.options ?? {});
}
