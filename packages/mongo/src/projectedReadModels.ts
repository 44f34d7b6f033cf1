import type { EventEnvelope } from '@chat/contracts';
import type { Collection, Db } from 'mongodb';
import type { Stored } from './documentStore.js';
import { allOf, mongoProjection } from './projectionRuntime.js';
import type { EventApplier, Projection } from './projectionRuntime.js';
import type { MongoDocumentStoreOptions } from './mongoDocumentStore.js';

/**
 * The scaffold of a service's read models: each collection is declared once, with the projection that
 * writes it (`projected`), and `apply` hands every batch to all of them side by side (`allOf`). Read
 * models whose projections must run in an order, or that remember what they applied, write their own
 * `apply` instead of hiding that here.
 */
export abstract class ProjectedReadModels implements EventApplier {
  private readonly projections: EventApplier[] = [];
  /** All of them as one applier, made at the first batch (every collection is declared by then). */
  private combined: EventApplier | null = null;

  /** `store`: how every projected collection is written (a rebuild inserts in bigger commands, ADR 0114). */
  constructor(
    protected readonly db: Db,
    private readonly store: MongoDocumentStoreOptions = {},
  ) {}

  /** The collection `projection` writes, for the queries to read; its events reach it through `apply`. */
  protected projected<Doc extends object, Event extends EventEnvelope>(collectionName: string, projection: Projection<Doc, Event>): Collection<Stored<Doc>> {
    this.projections.push(mongoProjection(this.db, collectionName, projection, this.store));
    this.combined = null;
    return this.db.collection<Stored<Doc>>(collectionName);
  }

  /** Both the command path (read-your-writes) and the topic consumer come through here. */
  apply(events: readonly EventEnvelope[]): Promise<void> {
    this.combined ??= allOf(...this.projections);
    return this.combined.apply(events);
  }
}
