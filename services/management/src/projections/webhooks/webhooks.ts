import { webhookDocumentId, webhookDocuments } from '@chat/contracts';
import type { WebhookDocument, WebhookDocumentEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const WEBHOOKS_COLLECTION = 'webhooks';

export type { WebhookDocument };
export { webhookDocumentId };

/** One document per webhook; the fold is the one the webhooks process projects too (`@chat/contracts`). */
export const webhooksProjection: Projection<WebhookDocument, WebhookDocumentEvent> = { name: WEBHOOKS_COLLECTION, ...webhookDocuments };
