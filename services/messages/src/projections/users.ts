import { eventTypeIn, userLifecycleEventTypes, userProfileFields } from '@chat/contracts';
import type {
  EventEnvelope,
  UserCreated,
  UserDeactivated,
  UserDeleted,
  UserProfileFields,
  UserReactivated,
  UsersBlocked,
  UsersUnblocked,
  UserUpdated,
} from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { sourceOfStream } from './source.js';

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
  updatedAt?: number;
  /** Uids this user has blocked. */
  blocked: string[];
  /** The user's tags, for lists that show them on mentions (`mentionsWithTagInfo`). */
  tags?: string[];
}

type Handled =
  | EventEnvelope<'UserCreated', UserCreated>
  | EventEnvelope<'UserUpdated', UserUpdated>
  | EventEnvelope<'UserDeactivated', UserDeactivated>
  | EventEnvelope<'UserReactivated', UserReactivated>
  | EventEnvelope<'UserDeleted', UserDeleted>
  | EventEnvelope<'UsersBlocked', UsersBlocked>
  | EventEnvelope<'UsersUnblocked', UsersUnblocked>;

const isHandledType = eventTypeIn([...userLifecycleEventTypes, 'UsersBlocked', 'UsersUnblocked']);

export function knownUserId(appId: string, uid: string): string {
  return `user:${appId}:${uid}`;
}

function applyUpdate(doc: KnownUserDoc, update: UserUpdated): KnownUserDoc {
  const { changes } = update;
  const next: KnownUserDoc = {
    ...doc,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.avatar !== undefined ? { avatar: changes.avatar } : {}),
    ...(changes.link !== undefined ? { link: changes.link } : {}),
    ...(changes.role !== undefined ? { role: changes.role } : {}),
    ...(changes.tags !== undefined ? { tags: changes.tags } : {}),
    updatedAt: update.updatedAt,
  };
  if (update.removed.includes('avatar')) delete next.avatar;
  if (update.removed.includes('link')) delete next.link;
  if (update.removed.includes('tags')) delete next.tags;
  return next;
}

export const knownUsersProjection: Projection<KnownUserDoc, Handled> = {
  name: 'known_users',
  canHandle: (event: EventEnvelope): event is Handled => isHandledType(event),
  documentIds: (event) => [knownUserId(event.appId, event.data.uid)],
  sourceOf: (event) => sourceOfStream(event.streamId),
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
        return doc ? applyUpdate(doc, event.data) : null;
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
