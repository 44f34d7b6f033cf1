import type { Db, Document } from 'mongodb';

export type IndexSpec = { keys: Document; options?: { unique?: boolean; name?: string } };

/** MongoDB's (and FerretDB's) code for a collection that does not exist. */
const NAMESPACE_NOT_FOUND = 26;

export async function ensureIndexes(db: Db, collectionName: string, specs: readonly IndexSpec[]): Promise<void> {
  const collection = db.collection(collectionName);
  for (const spec of specs) await collection.createIndex(spec.keys, spec.options ?? {});
}

/**
 * Drops the named indexes a collection may still have from an earlier version: every index costs every
 * insert, so one no read needs any more must not stay behind in a store that existed before.
 */
export async function dropRetiredIndexes(db: Db, collectionName: string, names: readonly string[]): Promise<void> {
  const collection = db.collection(collectionName);
  const existing = await collection
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === NAMESPACE_NOT_FOUND) return [];
      throw error;
    });
  for (const { name } of existing) if (typeof name === 'string' && names.includes(name)) await collection.dropIndex(name);
}
