export { createManagementService, PROJECTION_GROUP } from './service.js';
export type { ManagementDeps } from './service.js';
export { loadConfig } from './config.js';
export type { ManagementConfig } from './config.js';
// The read shape of management's published app and webhook events, which the webhooks process
// projects into its own database with the same code.
export { APPS_COLLECTION, appsProjection } from './projections/apps/apps.js';
export type { AppDocument } from './projections/apps/apps.js';
export { WEBHOOKS_COLLECTION, webhookDocumentId, webhooksProjection } from './projections/webhooks/webhooks.js';
export type { WebhookDocument } from './projections/webhooks/webhooks.js';
export { effectiveSettings } from './domain/apps/settings.js';
