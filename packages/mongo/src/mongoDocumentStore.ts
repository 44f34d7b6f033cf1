import { chunk } from '@chat/contracts';
import { MongoBulkWriteError } from 'mongodb';
import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import { isDuplicateKeyError } from './connect.js';
import { idOfWrite } from './documentStore.js';
import type { DocumentStore, GuardedWrite, StoredRecord } from './documentStore.js';
import { findByIds } from './findByIds.js';

/**
 * Guarded replaces and deletes per command (ADR 0094). The store lets one write command at a time in
 * (ADR 0046), and every send's writes queue behind whatever command holds it: a fold replaces whole
 * read-model documents (≈ 1 ms a statement on a quiet store, the conversations' timeline folds 6–8 to a
 * command, the longest commands the stack sent), so a command of four holds the lock about as long as a
 * send's own insert does. Each further command costs ≈ 0.7 ms of lock, paid only by writes of more than
 * four (folds, a few per second). Far below issue 8's hang at 100 statements too.
 */
export const GUARDED_WRITES_PER_COMMAND = 4;
/**
 * Documents per insert command. An insert does not hold a connection per document (measured: 1,000
 * per command answer), and its per-command cost halves from 50 to 100 documents; beyond that the
 * per-document cost dominates.
 */
const DOCUMENTS_PER_INSERT = 100;
/**
 * Documents per insert command of a rebuild (`chatctl rebuild`, ADR 0114, 0147), where nothing waits on
 * the store's write lock and the consumer's own CPU per event is the cost: the driver spends about 3 ms
 * of CPU a command beside what each document costs (insertMany of message documents, client CPU per
 * document: 0.047–0.065 ms at 100 a command, 0.020–0.024 at 1,000). A rebuild's run is a partition's
 * whole fetched batch (`REBUILD_EVENTS_PER_CALL`, ≈1,100 message events): its new documents go in one
 * command (the driver still splits one larger than the store's message size).
 */
export const REBUILD_DOCUMENTS_PER_INSERT = 10_000;

export interface MongoDocumentStoreOptions {
  /** Documents per insert command (default 100: a live store's write lock is held about 10 ms). */
  documentsPerInsert?: number;
}

/** The write errors of an unordered insert, whatever shape the driver reports them in. */
function writeErrorsOf(error: MongoBulkWriteError): Array<{ index: number; code: number }> {
  const errors = error.writeErrors as unknown;
  if (errors === undefined || errors === null) return [];
  return (Array.isArray(errors) ? errors : [errors]) as Array<{ index: number; code: number }>;
}

/** Attempts of one insert or guarded write when the connection is lost under it. */
const CONNECTION_ATTEMPTS = 3;
const LOST_CONNECTION = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoPoolClearedError']);

/**
 * The connection went away under the command (FerretDB closes connections under load, or restarted):
 * a bulk write error without write errors, or a network error. Retrying is safe for the runtime's
 * writes: an insert that did land comes back as a duplicate and a guarded write that did land as lost,
 * and the runtime re-reads and folds again either way.
 */
function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (LOST_CONNECTION.has(error.name)) return true;
  return error instanceof MongoBulkWriteError && writeErrorsOf(error).length === 0;
}

async function withConnectionRetry<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= CONNECTION_ATTEMPTS || !isConnectionLoss(error)) throw error;
    }
  }
}

/** A read-model collection behind the runtime's port. Every filter is `{_id}`, `{_id: {$in}}` or exactly `{_id, _rev}`. */
export class MongoDocumentStore implements DocumentStore {
  private readonly collection: Collection<StoredRecord>;
  private readonly documentsPerInsert: number;

  constructor(db: Db, collectionName: string, options: MongoDocumentStoreOptions = {}) {
    this.collection = db.collection<StoredRecord>(collectionName);
    this.documentsPerInsert = options.documentsPerInsert ?? DOCUMENTS_PER_INSERT;
  }

  findMany(ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    return findByIds(this.collection, ids);
  }

  async insert(documents: readonly StoredRecord[]): Promise<string[]> {
    const duplicates: string[] = [];
    for (const slice of chunk(documents, this.documentsPerInsert)) {
      try {
        // The driver adds nothing to documents that carry their own `_id`; copies keep the caller's intact.
        await withConnectionRetry(() => this.collection.insertMany(slice, { ordered: false }));
      } catch (error) {
        if (error instanceof MongoBulkWriteError) {
          const failures = writeErrorsOf(error);
          // Duplicates only when there are write errors and every one says so: the driver also reports a
          // connection lost mid-insert as a bulk write error, with no write errors, and nothing stored.
          // Taken for success, the runtime cached documents that were never written (the chaos run lost
          // timeline chunks this way while FerretDB was down).
          if (failures.length > 0 && failures.every((failure) => failure.code === 11000)) {
            duplicates.push(...failures.map((failure) => slice[failure.index]!._id));
            continue;
          }
        }
        if (isDuplicateKeyError(error) && slice.length === 1) {
          duplicates.push(slice[0]!._id);
          continue;
        }
        throw error;
      }
    }
    return duplicates;
  }

  async writeGuarded(writes: readonly GuardedWrite[]): Promise<string[]> {
    const lost: string[] = [];
    for (const slice of chunk(writes, GUARDED_WRITES_PER_COMMAND)) {
      const operations: AnyBulkWriteOperation<StoredRecord>[] = slice.map((write) => {
        const filter = { _id: idOfWrite(write), _rev: write.expectedRev } as Filter<StoredRecord>;
        return write.kind === 'replace'
          ? { replaceOne: { filter, replacement: write.document } }
          : { deleteOne: { filter } };
      });
      const result = await withConnectionRetry(() => this.collection.bulkWrite(operations, { ordered: false }));
      // The command reports counts, not which statement missed: every id of a short chunk is re-checked.
      if (result.matchedCount + result.deletedCount < slice.length) lost.push(...slice.map(idOfWrite));
    }
    return lost;
  }
}
