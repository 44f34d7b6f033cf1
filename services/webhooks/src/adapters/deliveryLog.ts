import { stripStoredFields } from '@chat/mongo';
import type { DocumentStore, Stored, StoredRecord } from '@chat/mongo';
import type { DeliveryDocument } from '../domain/delivery.js';

export const DELIVERIES_COLLECTION = 'deliveries';

/** A delivery as stored, with the compare-and-set counter its next write is guarded by. */
export interface StoredDelivery {
  document: DeliveryDocument;
  rev: number;
}

/**
 * The delivery log (ADR 0044): one document per delivery, `_id` = delivery id, the fields no query
 * reads packed into one string (ADR 0073), written through the store's fast shapes only — new
 * deliveries in grouped inserts (one command per run of source events), an attempt's outcome as a
 * replace guarded by `{_id, _rev}`, reads by `_id`.
 */
export class DeliveryLog {
  constructor(private readonly store: DocumentStore) {}

  /** Stores new deliveries in one grouped insert; returns the ids that were stored already (left as they are). */
  async insert(documents: readonly DeliveryDocument[]): Promise<Set<string>> {
    if (documents.length === 0) return new Set();
    return new Set(await this.store.insert(documents.map((document) => stored(document, 1))));
  }

  /** Replaces a delivery if it is still at `expectedRev`; false when another write got there first. */
  async replace(document: DeliveryDocument, expectedRev: number): Promise<boolean> {
    const lost = await this.store.writeGuarded([{ kind: 'replace', document: stored(document, expectedRev + 1), expectedRev }]);
    return lost.length === 0;
  }

  /**
   * Replaces many deliveries, each if it is still at its `expectedRev`, in one command; returns the ids
   * that may have lost (the store reports counts, so a short command names every id of it).
   */
  async replaceMany(writes: ReadonlyArray<{ document: DeliveryDocument; expectedRev: number }>): Promise<Set<string>> {
    const lost = await this.store.writeGuarded(writes.map(({ document, expectedRev }) => ({ kind: 'replace', document: stored(document, expectedRev + 1), expectedRev })));
    return new Set(lost);
  }

  async find(deliveryId: string): Promise<StoredDelivery | null> {
    const found = (await this.store.findMany([deliveryId])).get(deliveryId);
    return found ? storedDelivery(found as Stored<DeliveryDocument> | PackedDelivery) : null;
  }
}

/**
 * What the log's queries filter, sort and count on (and `attempts`, which an operator counts by) stays
 * a field of its own; the rest of a delivery (its body, its last answer, its retry window) is one JSON
 * string (ADR 0073): fewer values for the store to convert on each insert and replace.
 */
type QueriedFields = Pick<DeliveryDocument, 'appId' | 'webhookId' | 'status' | 'queuedAt' | 'sourceVersion' | 'attempts'>;

/** A delivery as this build stores it: the queried fields and `packed`, the rest as JSON. */
type PackedDelivery = StoredRecord & QueriedFields & { packed: string };

/** A stored document read by any query of the collection, as the log's own record (either shape). */
export function storedDelivery(found: Stored<DeliveryDocument> | PackedDelivery): StoredDelivery {
  if (!('packed' in found) || typeof found.packed !== 'string') return { document: stripStoredFields(found as Stored<DeliveryDocument>), rev: found._rev };
  const { _id, _rev, appId, webhookId, status, queuedAt, sourceVersion, attempts, packed } = found;
  const rest = JSON.parse(packed) as Omit<DeliveryDocument, keyof QueriedFields | 'deliveryId'>;
  return { document: { ...rest, appId, webhookId, deliveryId: _id, status, queuedAt, sourceVersion, attempts }, rev: _rev };
}

function stored(document: DeliveryDocument, rev: number): PackedDelivery {
  const { appId, webhookId, deliveryId, status, queuedAt, sourceVersion, attempts, ...rest } = document;
  return { _id: deliveryId, _rev: rev, _positions: {}, appId, webhookId, status, queuedAt, sourceVersion, attempts, packed: JSON.stringify(rest) };
}
