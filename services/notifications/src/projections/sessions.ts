import { authTokenEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const SESSIONS_COLLECTION = 'notification_sessions';

/** A live auth token (by fingerprint) and its user: push tokens are registered with one. */
export interface SessionDocument {
  appId: string;
  uid: string;
}

type Handled = EventOf<(typeof authTokenEventTypes)[number]>;

export function sessionId(appId: string, tokenFingerprint: string): string {
  return `${appId}:${tokenFingerprint}`;
}

export const sessionsProjection: Projection<SessionDocument, Handled> = {
  name: SESSIONS_COLLECTION,
  eventTypes: authTokenEventTypes,
  documentIds: (event) => (event.type === 'AuthTokensRevoked' ? event.data.tokenIds : [event.data.tokenId]).map((id) => sessionId(event.appId, id)),
  creates: (event) => event.type === 'AuthTokenCreated',
  evolve: (document, event) => {
    switch (event.type) {
      case 'AuthTokenCreated':
        return { appId: event.appId, uid: event.data.uid };
      case 'AuthTokenUpdated':
        return document;
      case 'AuthTokensRevoked':
        return null;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
