import { eventTypeIn, userLifecycleEventTypes, userProfileFields } from '@chat/contracts';
import type { EventEnvelope, UserCreated, UserDeactivated, UserDeleted, UserReactivated, UserUpdated } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import type { PeerUserDoc } from '../domain/conversationView.js';

type Handled =
  | EventEnvelope<'UserCreated', UserCreated>
  | EventEnvelope<'UserUpdated', UserUpdated>
  | EventEnvelope<'UserDeactivated', UserDeactivated>
  | EventEnvelope<'UserReactivated', UserReactivated>
  | EventEnvelope<'UserDeleted', UserDeleted>;

const isLifecycleEvent = eventTypeIn(userLifecycleEventTypes);

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

/** A user who can act and be addressed: neither deactivated nor deleted. */
export function isActiveUser(user: PeerUserDoc | null | undefined): user is PeerUserDoc {
  return user !== null && user !== undefined && user.deactivated !== true && user.deleted === undefined;
}

function applyUpdate(doc: PeerUserDoc, update: UserUpdated): PeerUserDoc {
  const { changes } = update;
  const next: PeerUserDoc = { ...doc, updatedAt: update.updatedAt };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.avatar !== undefined) next.avatar = changes.avatar;
  if (changes.link !== undefined) next.link = changes.link;
  if (changes.role !== undefined) next.role = changes.role;
  if (changes.tags !== undefined) next.tags = changes.tags;
  for (const field of update.removed) {
    if (field === 'avatar') delete next.avatar;
    if (field === 'link') delete next.link;
    if (field === 'tags') next.tags = [];
  }
  return next;
}

/**
 * This service's own copy of users: existence checks and `conversationWith`, which follows profile
 * changes because it is rendered from here at read time.
 */
export const usersProjection: Projection<PeerUserDoc, Handled> = {
  name: 'users',
  canHandle: (event: EventEnvelope): event is Handled => isLifecycleEvent(event),
  documentIds: (event) => [userDocId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  evolve(doc, event) {
    switch (event.type) {
      case 'UserCreated':
        return { appId: event.appId, ...userProfileFields(event.data), status: 'offline', tags: event.data.tags };
      case 'UserUpdated':
        return doc ? applyUpdate(doc, event.data) : null;
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
