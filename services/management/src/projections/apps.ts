import type { AppCreated, EventEnvelope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const APPS_COLLECTION = 'apps';

export interface AppDocument {
  appId: string;
  name: string;
  region: string;
  createdAt: number;
}

type AppCreatedEvent = EventEnvelope<'AppCreated', AppCreated>;

/** One document per app (`_id` = app id). Keys live in their own read model and are joined on read. */
export const appsProjection: Projection<AppDocument, AppCreatedEvent> = {
  name: APPS_COLLECTION,
  canHandle: (event): event is AppCreatedEvent => event.type === 'AppCreated',
  documentIds: (event) => [event.data.appId],
  sourceOf: () => 'app',
  evolve: (document, event) =>
    document ?? { appId: event.data.appId, name: event.data.name, region: event.data.region, createdAt: event.data.createdAt },
};
