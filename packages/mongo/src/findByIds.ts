import type { Collection, Document, Filter } from 'mongodb';

/**
 * Ids per read. Our FerretDB build fetches `_id: {$in: [...]}` by its `_id` index for up to 1,000
 * strings (ADR 0011); past that it would scan the collection, so larger sets go in several reads.
 */
export const MAX_IDS_PER_READ = 500;

/**
 * The documents with these ids (absent ones left out), in one round trip per `MAX_IDS_PER_READ` ids
 * instead of one per id: the way every service reads a set of documents it knows the ids of.
 * `projection` narrows the fields returned (`_id` always comes back).
 */
export async function findByIds<D extends Document>(
  collection: Collection<D>,
  ids: readonly string[],
  projection?: Document,
): Promise<Map<string, D>> {
  // A send that names no parent or quoted message asks for none: no reads to gather (ADR 0119).
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  const chunks: string[][] = [];
  for (let from = 0; from < unique.length; from += MAX_IDS_PER_READ) chunks.push(unique.slice(from, from + MAX_IDS_PER_READ));
  const found = new Map<string, D>();
  const reads = await Promise.all(
    chunks.map((chunk) => {
      const filter = (chunk.length === 1 ? { _id: chunk[0] } : { _id: { $in: chunk } }) as Filter<D>;
      return collection.find(filter, projection ? { projection } : {}).toArray();
    }),
  );
  for (const docs of reads) for (const doc of docs) found.set(String(doc['_id']), doc as D);
  return found;
}
