import { apiKeyEventTypes, appEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import { appIdListProjection } from '@chat/mongo';

export const APP_KEYS_COLLECTION = 'app_keys';

const appKeysEventTypes = [...appEventTypes, ...apiKeyEventTypes] as const;
type AppKeysEvent = EventOf<(typeof appKeysEventTypes)[number]>;

/**
 * The hashes (`_id`s in `apikeys`) of every key an app ever had, revoked ones included (their
 * documents stay as tombstones), oldest first, `_id` = app id: an app's keys are then a read by `_id`
 * and one `_id $in`, where a filter on `appId` scans every app's keys on FerretDB (ADR 0074, 0076).
 */
export const appKeysProjection = appIdListProjection<AppKeysEvent>({
  name: APP_KEYS_COLLECTION,
  eventTypes: appKeysEventTypes,
  creates: (event) => event.type === 'AppCreated',
  added: (event) => (event.type === 'ApiKeyCreated' ? event.data.keyHash : undefined),
});
