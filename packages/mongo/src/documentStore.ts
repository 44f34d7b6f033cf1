/** Fields the projection runtime keeps on every read-model document, next to the projection's own. */
export interface StoredProjectionFields {
  _id: string;
  /** Last applied stream version per source: the guard that makes redelivery and replay no-ops. */
  _positions: Record<string, number>;
  /** Compare-and-set counter: concurrent writers of the same document serialise on it. */
  _rev: number;
}

export type Stored<Doc extends object> = Doc & StoredProjectionFields;

/** A stored document as the store sees it: the guard fields and anything else. */
export type StoredRecord = StoredProjectionFields & Record<string, unknown>;

export function stripStoredFields<Doc extends object>(stored: Stored<Doc>): Doc {
  const { _id, _positions, _rev, ...doc } = stored;
  void _id;
  void _positions;
  void _rev;
  return doc as unknown as Doc;
}

/** A write that only lands if the stored document still has `expectedRev` (filter exactly `{_id, _rev}`). */
export type GuardedWrite =
  | { kind: 'replace'; document: StoredRecord; expectedRev: number }
  | { kind: 'delete'; id: string; expectedRev: number };

export function idOfWrite(write: GuardedWrite): string {
  return write.kind === 'replace' ? write.document._id : write.id;
}

/**
 * What the projection runtime needs of a collection: grouped reads by `_id` (the only lookup FerretDB
 * answers from its index), grouped inserts, and grouped compare-and-set writes. A failure of any call
 * is an outage (the caller retries the whole batch); a lost race is an answer, not an error.
 */
export interface DocumentStore {
  /** The stored documents with these ids; absent ones are missing from the map. */
  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>>;
  /** Inserts new documents; returns the ids that already existed (another writer created them first). */
  insert(documents: readonly StoredRecord[]): Promise<string[]>;
  /**
   * Replaces or deletes documents under their `_rev` guard; returns the ids that may not have been
   * written. A store that cannot tell which statement of a command lost may return them all: the
   * runtime re-reads and re-folds those, and a document that was written finds its events applied.
   */
  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]>;
}

/**
 * The same port over a map, for tests and tools: one document per id, the same duplicate and
 * compare-and-set answers as the MongoDB store. Documents are copied in and out, as a database would.
 */
export class InMemoryDocumentStore implements DocumentStore {
  private readonly documents = new Map<string, StoredRecord>();

  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    const found = new Map<string, StoredRecord>();
    for (const id of ids) {
      const document = this.documents.get(id);
      if (document) found.set(id, structuredClone(document));
    }
    return Promise.resolve(found);
  }

  insert(documents: readonly StoredRecord[]): Promise<string[]> {
    const duplicates: string[] = [];
    for (const document of documents) {
      if (this.documents.has(document._id)) duplicates.push(document._id);
      else this.documents.set(document._id, structuredClone(document));
    }
    return Promise.resolve(duplicates);
  }

  writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    const lost: string[] = [];
    for (const write of writes) {
      const id = idOfWrite(write);
      if (this.documents.get(id)?._rev !== write.expectedRev) {
        lost.push(id);
        continue;
      }
      if (write.kind === 'replace') this.documents.set(id, structuredClone(write.document));
      else this.documents.delete(id);
    }
    return Promise.resolve(lost);
  }

  /** Every stored document without its guard fields, by id (what a test compares). */
  snapshot<Doc extends object>(): Map<string, Doc> {
    return new Map([...this.documents].map(([id, stored]) => [id, stripStoredFields(structuredClone(stored) as Stored<Doc>)]));
  }

  /** Every stored document with its guard fields, in id order. */
  stored(): StoredRecord[] {
    return [...this.documents.values()].map((stored) => structuredClone(stored)).sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  /** The document without its guard fields (what a read model's query returns). */
  document<Doc extends object>(id: string): Doc | undefined {
    const stored = this.documents.get(id);
    return stored ? stripStoredFields(structuredClone(stored) as Stored<Doc>) : undefined;
  }

  /** An independent store holding the same documents (a database restored from a backup). */
  copy(): InMemoryDocumentStore {
    const copy = new InMemoryDocumentStore();
    for (const [id, stored] of this.documents) copy.documents.set(id, structuredClone(stored));
    return copy;
  }
}

/** One document by id through the port (a `findMany` of one), or null. */
export async function findDocument(store: Pick<DocumentStore, 'findMany'>, id: string): Promise<StoredRecord | null> {
  return (await store.findMany([id])).get(id) ?? null;
}
