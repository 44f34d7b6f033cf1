import type { Collection } from 'mongodb';
import type { StoredProjectionFields } from './documentStore.js';
import { findByIds } from './findByIds.js';

/**
 * Where stored read-model documents stand: per document (absent ones left out), the last version
 * applied per source. Reads by `_id` and only the positions, for a caller that waits for a projection.
 */
export async function appliedPositions<D extends StoredProjectionFields>(
  collection: Collection<D>,
  ids: readonly string[],
): Promise<Map<string, Record<string, number>>> {
  const docs = await findByIds(collection, ids, { _positions: 1 });
  return new Map([...docs].map(([id, doc]) => [id, doc._positions ?? {}]));
}
