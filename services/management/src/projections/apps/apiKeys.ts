import { apiKeyEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { ApiKeyState } from '../../domain/apps/appState.js';

export const API_KEYS_COLLECTION = 'apikeys';

export interface ApiKeyDocument extends ApiKeyState {
  appId: string;
  updatedAt: number;
  /**
   * Deleted keys stay as tombstones: the writer's position guard lives in the document, so removing
   * it would let a redelivered ApiKeyCreated bring a revoked key back to life.
   */
  deleted: boolean;
  deletedAt?: number;
}

/** Key events, and app deletion, which revokes every key of the app at once. */
const keyDocumentEventTypes = [...apiKeyEventTypes, 'AppDeleted'] as const;
export type ApiKeyEvent = EventOf<(typeof keyDocumentEventTypes)[number]>;

/**
 * One document per key, `_id` = key hash: the primary key is the unique index on the hash that the
 * gateway's lookup uses, and unlike the 64-bit key id it cannot collide across apps.
 */
export const apiKeysProjection: Projection<ApiKeyDocument, ApiKeyEvent> = {
  name: API_KEYS_COLLECTION,
  eventTypes: keyDocumentEventTypes,
  documentIds: (event) => (event.type === 'AppDeleted' ? event.data.keyHashes : [event.data.keyHash]),
  sourceOf: () => 'app',
  evolve: (document, event) => {
    switch (event.type) {
      case 'ApiKeyCreated': {
        const { keyId, keyHash, maskedKey, name, scope, createdBy, createdAt } = event.data;
        return { appId: event.appId, keyId, keyHash, maskedKey, name, scope, createdBy, createdAt, updatedAt: createdAt, deleted: false };
      }
      case 'ApiKeyUpdated':
        return document && { ...document, name: event.data.name, scope: event.data.scope, updatedAt: event.data.updatedAt };
      case 'ApiKeyDeleted':
      case 'AppDeleted':
        return document && { ...document, deleted: true, deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt };
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
