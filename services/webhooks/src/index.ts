export { createWebhooksService } from './service.js';
export type { WebhooksServiceDeps } from './service.js';
export { loadConfig } from './config.js';
export type { WebhooksConfig } from './config.js';
export { WebhookReadModels } from './adapters/readModels.js';
