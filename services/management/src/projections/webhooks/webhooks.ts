import { webhookEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { configOf } from '../../domain/webhooks/webhooks.js';
import type { WebhookState } from '../../domain/webhooks/webhooks.js';

export const WEBHOOKS_COLLECTION = 'webhooks';

/** A webhook as both the management API and the webhooks process read it; secrets only sealed. */
export interface WebhookDocument extends WebhookState {
  appId: string;
  /** A tombstone: the position guard lives in the document. */
  deleted: boolean;
}

type WebhookEvent = EventOf<(typeof webhookEventTypes)[number]>;

export function webhookDocumentId(appId: string, webhookId: string): string {
  return `${appId}:${webhookId}`;
}

/** One document per webhook (`_id` = `<appId>:<webhookId>`), fed by the app's stream. */
export const webhooksProjection: Projection<WebhookDocument, WebhookEvent> = {
  name: WEBHOOKS_COLLECTION,
  eventTypes: webhookEventTypes,
  documentIds: (event) => [webhookDocumentId(event.appId, event.data.webhookId)],
  sourceOf: () => 'app',
  evolve: (document, event) => {
    const { at } = event.data;
    if (event.type === 'WebhookCreated') {
      return {
        ...configOf(event.data),
        appId: event.appId,
        sealedSecret: event.data.sealedSecret,
        triggers: [],
        createdAt: at,
        updatedAt: at,
        deleted: false,
      };
    }
    if (!document || document.deleted) return document;
    switch (event.type) {
      case 'WebhookUpdated': {
        const { sealedSecret, triggers, createdAt, deleted } = document;
        return { ...configOf(event.data), appId: event.appId, sealedSecret, triggers, createdAt, deleted, updatedAt: at };
      }
      case 'WebhookSecretRotated':
        return { ...document, sealedSecret: event.data.sealedSecret, updatedAt: at };
      case 'WebhookTriggersAdded':
      case 'WebhookTriggersRemoved':
        return { ...document, triggers: event.data.triggers, updatedAt: at };
      case 'WebhookDeleted':
        return { ...document, deleted: true, enabled: false, updatedAt: at };
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
