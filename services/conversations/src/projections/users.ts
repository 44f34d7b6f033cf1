import { applyUserUpdate, userLifecycleEventTypes, userProfileFields } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { PeerUserDoc } from '../domain/conversationView.js';

type Handled = EventOf<(typeof userLifecycleEventTypes)[number]>;

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

/** A user who can act and be addressed: neither deactivated nor deleted. */
export function isActiveUser(user: PeerUserDoc | null | undefined): user is PeerUserDoc {
  return user !== null && user !== undefined && user.deactivated !== true && user.deleted === undefined;
}

/**
 * This service's own copy of users: existence checks and `conversationWith`, which follows profile
 * changes because it is rendered from here at read time.
 */
export const usersProjection: Projection<PeerUserDoc, Handled> = {
  name: 'users',
  eventTypes: userLifecycleEventTypes,
  documentIds: (event) => [userDocId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  // A new uid has no document yet (a tombstone of an earlier user makes the insert fail, then it is read).
  creates: (event) => event.type === 'UserCreated',
  evolve(doc, event) {
    switch (event.type) {
      case 'UserCreated':
        return { appId: event.appId, ...userProfileFields(event.data), status: 'offline' };
      case 'UserUpdated':
        return doc ? applyUserUpdate(doc, event.data) : null;
      case 'UserDeactivated':
        return doc ? { ...doc, deactivated: true } : null;
      case 'UserReactivated': {
        if (!doc) return null;
        const { deactivated, ...active } = doc;
        void deactivated;
        return active;
      }
      case 'UserDeleted':
        return doc ? { ...doc, deleted: event.data.permanent ? 'permanent' : 'soft' } : null;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
