import { chunk } from '@chat/contracts';
import type { AnyBulkWriteOperation, BulkWriteOptions, Collection, Document } from 'mongodb';

/**
 * The most statements one write command may carry. FerretDB v1 holds a pooled SQLite connection per
 * statement of an update command until the command ends (the pool has 100), so our runner refuses
 * update commands of more than 64 statements (ADR 0011); 50 leaves room below that. MongoDB itself
 * takes 100,000 per command, so the cap costs nothing there but a few more round trips.
 */
export const MAX_STATEMENTS_PER_COMMAND = 50;

/** What a chunked bulk write did, summed over its commands; upserted ids keyed by the operation's index in the whole list. */
export interface BulkWriteCounts {
  insertedCount: number;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
  upsertedIds: Record<number, unknown>;
}

/**
 * `collection.bulkWrite(operations)` sent as several bulk writes of at most MAX_STATEMENTS_PER_COMMAND
 * operations each, one after another, so no command the driver makes of them exceeds the cap. An
 * ordered write (the default) stops at the first failing chunk, which throws as bulkWrite does;
 * earlier chunks stay applied, as with any bulk write without a transaction.
 */
export async function bulkWriteChunked<T extends Document>(
  collection: Pick<Collection<T>, 'bulkWrite'>,
  operations: readonly AnyBulkWriteOperation<T>[],
  options?: BulkWriteOptions,
): Promise<BulkWriteCounts> {
  const counts: BulkWriteCounts = {
    insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0, upsertedIds: {},
  };
  let offset = 0;
  for (const slice of chunk(operations, MAX_STATEMENTS_PER_COMMAND)) {
    const result = await collection.bulkWrite(slice, options);
    counts.insertedCount += result.insertedCount;
    counts.matchedCount += result.matchedCount;
    counts.modifiedCount += result.modifiedCount;
    counts.deletedCount += result.deletedCount;
    counts.upsertedCount += result.upsertedCount;
    for (const [index, id] of Object.entries(result.upsertedIds)) counts.upsertedIds[offset + Number(index)] = id;
    offset += slice.length;
  }
  return counts;
}
