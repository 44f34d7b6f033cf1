import { appDocuments, webhookDocuments } from '@chat/contracts';
import type { AppDocument, AppDocumentEvent, WebhookDocument, WebhookDocumentEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const APPS_COLLECTION = 'apps';
export const WEBHOOKS_COLLECTION = 'webhooks';

/**
 * The apps and webhooks this process delivers for, projected into its own database from management's
 * events with the folds management publishes in `@chat/contracts` (the same documents management's API reads).
 */
export const appsProjection: Projection<AppDocument, AppDocumentEvent> = { name: APPS_COLLECTION, ...appDocuments };
export const webhooksProjection: Projection<WebhookDocument, WebhookDocumentEvent> = { name: WEBHOOKS_COLLECTION, ...webhookDocuments };
