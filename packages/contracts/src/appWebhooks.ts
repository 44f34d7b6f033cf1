import { appEventTypes, webhookEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import { appIdListProjection } from '@chat/mongo';

export const APP_WEBHOOKS_COLLECTION = 'app_webhooks';

const appWebhooksEventTypes = [...appEventTypes, ...webhookEventTypes] as const;
type AppWebhooksEvent = EventOf<(typeof appWebhooksEventTypes)[number]>;

/**
 * The ids of an app's live webhooks, in creation order (`_id` = app id): loading an app's webhooks is
 * then a read by `_id` and one `_id $in`, where `{appId, deleted: false}` scans every app's webhooks
 * on FerretDB (ADR 0074, 0076).
 */
export const appWebhooksProjection = appIdListProjection<AppWebhooksEvent>({
  name: APP_WEBHOOKS_COLLECTION,
  eventTypes: appWebhooksEventTypes,
  creates: (event) => event.type === 'AppCreated',
  added: (event) => (event.type === 'WebhookCreated' ? event.data.webhookId : undefined),
  removed: (event) => (event.type === 'WebhookDeleted' ? event.data.webhookId : undefined),
});
