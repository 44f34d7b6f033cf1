import type { DocumentStore, GuardedWrite, StoredRecord } from '@chat/mongo';

interface Waiting {
  documents: StoredRecord[];
  resolve: (duplicates: Set<string>) => void;
  reject: (error: unknown) => void;
}

/**
 * One collection that several stores insert into, each under a key prefix of its own (ADR 0089). The
 * inserts the stores issue in the same turn of the event loop go to the store in one command: a
 * projection run's timeline revisions, inbox revisions and message copies are three inserts issued
 * together (the read models apply a run concurrently and none of them reads first once its documents
 * are known), and on this store a command costs several times a small document in it (ADR 0048). No
 * timer: the command goes out when the turn's other work is done (`setImmediate`).
 *
 * Each store answers as if it were alone: its own duplicates, its own ids without the prefix. A failed
 * command fails every insert it carried (each caller's run is retried, as for any outage). Reads and
 * guarded writes go to the collection at once, under the prefix.
 */
export class GatheredInserts {
  private waiting: Waiting[] = [];

  constructor(private readonly target: DocumentStore) {}

  /** The collection as seen by one kind of document: ids carry `prefix` in the store and not outside. */
  store(prefix: string): DocumentStore {
    const inside = (id: string) => prefix + id;
    const outside = (id: string) => id.slice(prefix.length);
    const stored = (document: StoredRecord): StoredRecord => ({ ...document, _id: inside(document._id) });
    return {
      findMany: async (ids) => {
        const found = await this.target.findMany(ids.map(inside));
        return new Map([...found].map(([id, document]) => [outside(id), { ...document, _id: outside(id) }]));
      },
      insert: async (documents) => {
        if (documents.length === 0) return [];
        const duplicates = await this.gather(documents.map(stored));
        return documents.flatMap((document) => (duplicates.has(inside(document._id)) ? [document._id] : []));
      },
      writeGuarded: async (writes) => {
        const prefixed = writes.map((write): GuardedWrite => (write.kind === 'replace' ? { ...write, document: stored(write.document) } : { ...write, id: inside(write.id) }));
        return (await this.target.writeGuarded(prefixed)).map(outside);
      },
    };
  }

  private gather(documents: StoredRecord[]): Promise<Set<string>> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ documents, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const duplicates = new Set(await this.target.insert(batch.flatMap((waiting) => waiting.documents)));
      for (const waiting of batch) waiting.resolve(duplicates);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
