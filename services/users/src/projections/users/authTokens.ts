import { authTokenEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** A token known by its SHA-256 fingerprint only; revoked tokens stay as tombstones (redelivery-safe). */
export interface AuthTokenDoc {
  appId: string;
  uid: string;
  tokenId: string;
  tokenHint?: string;
  platform?: string;
  deviceId?: string;
  userAgent?: string;
  /** JSON text of the client's `appInfo` object (ADR 0002). */
  appInfo?: string;
  createdAt: number;
  updatedAt: number;
  revoked: boolean;
}

type Handled = EventOf<(typeof authTokenEventTypes)[number]>;

export function authTokenDocId(appId: string, tokenId: string): string {
  return `${appId}:${tokenId}`;
}

export const authTokensProjection: Projection<AuthTokenDoc, Handled> = {
  name: 'authtokens',
  eventTypes: authTokenEventTypes,
  documentIds: (event) =>
    event.type === 'AuthTokensRevoked'
      ? event.data.tokenIds.map((id) => authTokenDocId(event.appId, id))
      : [authTokenDocId(event.appId, event.data.tokenId)],
  sourceOf: () => 'user',
  evolve(doc, event) {
    switch (event.type) {
      case 'AuthTokenCreated': {
        const { uid, tokenId, tokenHint, platform, deviceId, createdAt } = event.data;
        return {
          appId: event.appId,
          uid,
          tokenId,
          ...(tokenHint !== undefined ? { tokenHint } : {}),
          ...(platform !== undefined ? { platform } : {}),
          ...(deviceId !== undefined ? { deviceId } : {}),
          createdAt,
          updatedAt: createdAt,
          revoked: false,
        };
      }
      case 'AuthTokenUpdated': {
        if (!doc) return null;
        const { platform, userAgent, appInfo, updatedAt } = event.data;
        return {
          ...doc,
          ...(platform !== undefined ? { platform } : {}),
          ...(userAgent !== undefined ? { userAgent } : {}),
          ...(appInfo !== undefined ? { appInfo: JSON.stringify(appInfo) } : {}),
          updatedAt,
        };
      }
      case 'AuthTokensRevoked':
        return doc ? { ...doc, revoked: true, updatedAt: event.data.revokedAt } : null;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
