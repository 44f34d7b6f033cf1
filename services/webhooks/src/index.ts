export { createWebhooksService } from './service.js';
export type { WebhooksServiceDeps } from './service.js';
export { loadConfig } from './config.js';
export type { WebhooksConfig } from './config.js';
export { WebhookReadModels } from './adapters/readModels.js';
// The notifications service sends through the same lanes.
export { Dispatcher } from './app/dispatcher.js';
export type { AttemptResult, QueuedDelivery } from './app/dispatcher.js';
