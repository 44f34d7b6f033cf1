import { appEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const APPS_COLLECTION = 'apps';

export interface AppDocument {
  appId: string;
  name: string;
  region: string;
  createdAt: number;
}

type AppCreatedEvent = EventOf<(typeof appEventTypes)[number]>;

/** One document per app (`_id` = app id). Keys live in their own read model and are joined on read. */
export const appsProjection: Projection<AppDocument, AppCreatedEvent> = {
  name: APPS_COLLECTION,
  eventTypes: appEventTypes,
  documentIds: (event) => [event.data.appId],
  sourceOf: () => 'app',
  evolve: (document, event) =>
    document ?? { appId: event.data.appId, name: event.data.name, region: event.data.region, createdAt: event.data.createdAt },
};
