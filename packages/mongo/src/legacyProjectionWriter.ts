import type { EventEnvelope } from '@chat/contracts';
import type { Collection, Db } from 'mongodb';
import type { Stored } from './documentStore.js';
import { mongoProjection } from './projectionRuntime.js';
import type { Projection, ProjectionRuntime } from './projectionRuntime.js';

/**
 * @deprecated The one-event-at-a-time face of `ProjectionRuntime`, kept only while the conversation
 * read model (`services/conversations/src/adapters/readModels.ts`) moves onto the runtime on its own
 * branch. It has no guard of its own: every write goes through the runtime. Delete it with its last user.
 */
export class GuardedProjectionWriter<Doc extends object, Event extends EventEnvelope = EventEnvelope> {
  private readonly runtime: ProjectionRuntime<Doc, Event>;
  private readonly collection: Collection<Stored<Doc>>;

  constructor(db: Db, collectionName: string, projection: Projection<Doc, Event>) {
    this.runtime = mongoProjection(db, collectionName, projection);
    this.collection = db.collection<Stored<Doc>>(collectionName);
  }

  documents(): Collection<Stored<Doc>> {
    return this.collection;
  }

  handles(event: EventEnvelope): boolean {
    return this.runtime.handles(event);
  }

  apply(event: EventEnvelope): Promise<void> {
    return this.runtime.apply([event]);
  }
}
