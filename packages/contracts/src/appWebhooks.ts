import { appEventTypes, webhookEventTypes } from './events/management.js';
import type { EventOf } from './events/registry.js';

export const APP_WEBHOOKS_COLLECTION = 'app_webhooks';

const appWebhooksEventTypes = [...appEventTypes, ...webhookEventTypes] as const;
type AppWebhooksEvent = EventOf<(typeof appWebhooksEventTypes)[number]>;

/**
 * The ids of an app's live webhooks, in creation order (`_id` = app id): loading an app's webhooks is
 * then a read by `_id` and one `_id $in`, where `{appId, deleted: false}` scans every app's webhooks
 * on FerretDB (ADR 0074, 0076). Management and webhooks each project it in their own database with
 * `appIdListProjection(appWebhooksIdList)` (`@chat/mongo`): one definition, read by both.
 */
export const appWebhooksIdList = {
  name: APP_WEBHOOKS_COLLECTION,
  eventTypes: appWebhooksEventTypes,
  creates: (event: AppWebhooksEvent) => event.type === 'AppCreated',
  added: (event: AppWebhooksEvent) => (event.type === 'WebhookCreated' ? event.data.webhookId : undefined),
  removed: (event: AppWebhooksEvent) => (event.type === 'WebhookDeleted' ? event.data.webhookId : undefined),
};
