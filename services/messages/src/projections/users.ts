import { applyUserUpdate, blockEventTypes, userLifecycleEventTypes, userProfileFields } from '@chat/contracts';
import type { EventOf, UserProfileFields } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/**
 * What authorising and rendering a message needs of a user: that it exists and is active, whom it
 * has blocked, and its entity snapshot. A deleted user stays as a tombstone: its stream position
 * survives, so a redelivery of its creation cannot bring it back.
 */
export interface KnownUserDoc extends UserProfileFields {
  kind: 'user';
  appId: string;
  deactivated: boolean;
  deleted: boolean;
  /** Uids this user has blocked. */
  blocked: string[];
  /** The user's tags, for lists that show them on mentions (`mentionsWithTagInfo`). */
  tags?: string[];
}

/** A user's profile and standing, and whom they block. */
const knownUserEventTypes = [...userLifecycleEventTypes, ...blockEventTypes] as const;
type Handled = EventOf<(typeof knownUserEventTypes)[number]>;

export function knownUserId(appId: string, uid: string): string {
  return `user:${appId}:${uid}`;
}

export const knownUsersProjection: Projection<KnownUserDoc, Handled> = {
  name: 'known_users',
  eventTypes: knownUserEventTypes,
  documentIds: (event) => [knownUserId(event.appId, event.data.uid)],
  // A new uid has no document yet (a tombstone of an earlier user makes the insert fail, then it is read).
  creates: (event) => event.type === 'UserCreated',
  evolve(doc, event) {
    switch (event.type) {
      case 'UserCreated':
        return {
          kind: 'user',
          appId: event.appId,
          ...userProfileFields(event.data),
          deactivated: false,
          deleted: false,
          blocked: doc?.blocked ?? [],
          ...(event.data.tags.length > 0 ? { tags: event.data.tags } : {}),
        };
      case 'UserUpdated':
        return doc ? applyUserUpdate(doc, event.data) : null;
      case 'UserDeactivated':
        return doc ? { ...doc, deactivated: true } : null;
      case 'UserReactivated':
        return doc ? { ...doc, deactivated: false } : null;
      case 'UserDeleted':
        return doc ? { ...doc, deleted: true } : null;
      case 'UsersBlocked': {
        if (!doc) return null;
        const blocked = new Set([...doc.blocked, ...event.data.blockedUids]);
        return { ...doc, blocked: [...blocked] };
      }
      case 'UsersUnblocked': {
        if (!doc) return null;
        const unblocked = new Set(event.data.unblockedUids);
        return { ...doc, blocked: doc.blocked.filter((uid) => !unblocked.has(uid)) };
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
