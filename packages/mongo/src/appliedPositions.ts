import type { Collection, Filter } from 'mongodb';
import type { StoredProjectionFields } from './documentStore.js';

/**
 * Where stored read-model documents stand: per document (absent ones left out), the last version
 * applied per source. Reads by `_id` and only the positions, for a caller that waits for a projection.
 */
export async function appliedPositions<D extends StoredProjectionFields>(
  collection: Collection<D>,
  ids: readonly string[],
): Promise<Map<string, Record<string, number>>> {
  if (ids.length === 0) return new Map();
  const filter = (ids.length === 1 ? { _id: ids[0]! } : { _id: { $in: [...ids] } }) as Filter<D>;
  const docs = await collection.find(filter).project<Pick<StoredProjectionFields, '_id' | '_positions'>>({ _positions: 1 }).toArray();
  return new Map(docs.map((d) => [d._id, d._positions ?? {}]));
}
