import { notificationAppEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { emptyAppConfig, evolveAppConfig } from '../domain/appConfig.js';
import type { AppConfigState } from '../domain/appConfig.js';

export const APPS_COLLECTION = 'notification_apps';

/** An app's settings and providers (secrets sealed), as the API and the notifier read them. */
export interface AppConfigDocument extends AppConfigState {
  appId: string;
}

type Handled = EventOf<(typeof notificationAppEventTypes)[number]>;

/** One document per app (`_id` = appId), the same fold as the app's own stream. */
export const appsProjection: Projection<AppConfigDocument, Handled> = {
  name: APPS_COLLECTION,
  eventTypes: notificationAppEventTypes,
  documentIds: (event) => [event.appId],
  evolve: (document, event) => ({ ...evolveAppConfig(document ?? emptyAppConfig(), event), appId: event.appId }),
};
