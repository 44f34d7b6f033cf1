import { applyUserUpdate, userLifecycleEventTypes } from '@chat/contracts';
import type { EventOf, UserDeleted, EventEnvelope, UserCreated, UserUpdated } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { listKey } from './userDirectory.js';

export type UserDocState = 'active' | 'deactivated' | 'deleted';

/**
 * A user as the API shows it. A deleted user stays as a tombstone without its profile, so a late
 * redelivery of its creation cannot bring it back (the per-source position survives).
 */
export interface UserDoc {
  appId: string;
  uid: string;
  name: string;
  /** Lower-cased name: the search key, and the order of friend and blocked-user lists. */
  sortName: string;
  /** Creation time (ms) then uid: the order of user lists. */
  listKey: string;
  avatar?: string;
  link?: string;
  role: string;
  statusMessage?: string;
  /** JSON text: metadata keys are the client's and may contain dots or a leading `$` (ADR 0002). */
  metadata?: string;
  tags: string[];
  status: string;
  state: UserDocState;
  createdAt: number;
  updatedAt: number;
  deactivatedAt?: number;
  /** Kept from a data import (this service does not track activity itself yet). */
  lastActiveAt?: number;
  /**
   * The version of the user's stream this document reflects (absent on documents written before it
   * was kept): the directory keeps it so that a writer holding an older document never overwrites
   * a newer listing (ADR 0035).
   */
  version?: number;
}

type Handled = EventOf<(typeof userLifecycleEventTypes)[number]>;

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

function created(event: EventEnvelope<'UserCreated', UserCreated>): UserDoc {
  const user = event.data;
  return {
    appId: event.appId,
    uid: user.uid,
    name: user.name,
    sortName: user.name.toLowerCase(),
    // An imported user is listed where its own creation time puts it, not at the time of the import.
    listKey: listKey(user.imported ? new Date(user.createdAt * 1000).toISOString() : event.occurredAt, user.uid),
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    role: user.role,
    ...(user.statusMessage !== undefined ? { statusMessage: user.statusMessage } : {}),
    ...(user.metadata !== undefined ? { metadata: JSON.stringify(user.metadata) } : {}),
    tags: user.tags,
    status: 'offline',
    state: 'active',
    createdAt: user.createdAt,
    updatedAt: user.createdAt,
    ...(user.lastActiveAt !== undefined ? { lastActiveAt: user.lastActiveAt } : {}),
  };
}

/** The shared profile applier, then what only the users service keeps: sort key, status message, metadata. */
function updated(doc: UserDoc, update: UserUpdated): UserDoc {
  const next = applyUserUpdate(doc, update);
  const { changes } = update;
  next.sortName = next.name.toLowerCase();
  if (changes.statusMessage !== undefined) next.statusMessage = changes.statusMessage;
  if (changes.metadata !== undefined) next.metadata = JSON.stringify(changes.metadata);
  if (update.removed.includes('statusMessage')) delete next.statusMessage;
  if (update.removed.includes('metadata')) delete next.metadata;
  return next;
}

function tombstone(doc: UserDoc | null, event: EventEnvelope<'UserDeleted', UserDeleted>): UserDoc {
  return {
    appId: event.appId,
    uid: event.data.uid,
    name: '',
    sortName: '',
    listKey: doc?.listKey ?? listKey(event.occurredAt, event.data.uid),
    role: '',
    tags: [],
    status: 'offline',
    state: 'deleted',
    createdAt: doc?.createdAt ?? event.data.deletedAt,
    updatedAt: event.data.deletedAt,
  };
}

/** One user event on the user's document (null: no document yet). */
function evolveUser(doc: UserDoc | null, event: Handled): UserDoc | null {
  switch (event.type) {
    case 'UserCreated':
      return created(event);
    case 'UserUpdated':
      return doc && doc.state !== 'deleted' ? updated(doc, event.data) : doc;
    case 'UserDeactivated':
      return doc && doc.state === 'active' ? { ...doc, state: 'deactivated', deactivatedAt: event.data.deactivatedAt } : doc;
    case 'UserReactivated': {
      if (!doc || doc.state !== 'deactivated') return doc;
      const { deactivatedAt, ...rest } = doc;
      void deactivatedAt;
      return { ...rest, state: 'active', updatedAt: event.data.reactivatedAt };
    }
    case 'UserDeleted':
      return tombstone(doc, event);
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled ${JSON.stringify(unreachable)}`);
    }
  }
}

export const usersProjection: Projection<UserDoc, Handled> = {
  name: 'users',
  eventTypes: userLifecycleEventTypes,
  documentIds: (event) => [userDocId(event.appId, event.data.uid)],
  sourceOf: () => 'user',
  // A new uid has no document yet (a tombstone of an earlier user makes the insert fail, then it is read).
  creates: (event) => event.type === 'UserCreated',
  evolve(doc, event) {
    const next = evolveUser(doc, event);
    return next && { ...next, version: event.version };
  },
};
