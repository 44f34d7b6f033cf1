import type { Db, Document } from 'mongodb';

export type IndexSpec = { keys: Document; options?: { unique?: boolean; name?: string } };

export async function ensureIndexes(db: Db, collectionName: string, specs: readonly IndexSpec[]): Promise<void> {
  const collection = db.collection(collectionName);
  for (const spec of specs) await collection.createIndex(spec.keys, spec.options ?? {});
}
