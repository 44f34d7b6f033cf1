import { blockEventTypes, friendEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** A user's friends: who learns when it comes online or goes offline (ADR 0077). */
export interface FriendsDoc {
  appId: string;
  uid: string;
  friends: string[];
}

/**
 * The users-topic event types realtime projects (beside revocations, which its broadcast reads). A
 * user's creation is not among them: realtime keeps no copy of every user (ADR 0101), so its membership
 * group skips an import's `UserCreated` records undecoded.
 */
export const userReadModelEventTypes = [...friendEventTypes, ...blockEventTypes] as const;

export function userDocId(appId: string, uid: string): string {
  return `${appId}:${uid}`;
}

/**
 * Friendship is mutual and written from either friend's stream, so both documents change; a set
 * addition or removal is a no-op when re-applied, so no position per stream is kept (`sourceOf` null).
 */
export const friendsProjection: Projection<FriendsDoc, EventOf<(typeof friendEventTypes)[number]>> = {
  name: 'friends',
  eventTypes: friendEventTypes,
  documentIds: (event) => [event.data.uid, ...event.data.friendUids].map((uid) => userDocId(event.appId, uid)),
  sourceOf: () => null,
  evolve(doc, event, documentId) {
    const uid = documentId.slice(event.appId.length + 1);
    const others = uid === event.data.uid ? event.data.friendUids : [event.data.uid];
    const friends = new Set(doc?.friends ?? []);
    for (const other of others) {
      if (event.type === 'FriendsAdded') friends.add(other);
      else friends.delete(other);
    }
    return { appId: event.appId, uid, friends: [...friends].sort() };
  },
};

/** A user's blocks, both ways: whom a typing notice between it and another is kept from (ADR 0077's addendum). */
export interface BlocksDoc {
  appId: string;
  uid: string;
  /** Uids this user blocked. */
  blocked: string[];
  /** Uids that blocked this user. */
  blockedBy: string[];
}

/**
 * A block is written to the blocker's stream and changes both users' documents: the blocker's
 * `blocked` and each blocked user's `blockedBy`. Position-free like friends: re-applying an event
 * sets the same membership again.
 */
export const blocksProjection: Projection<BlocksDoc, EventOf<(typeof blockEventTypes)[number]>> = {
  name: 'blocks',
  eventTypes: blockEventTypes,
  documentIds: (event) => [event.data.uid, ...(event.type === 'UsersBlocked' ? event.data.blockedUids : event.data.unblockedUids)].map((uid) => userDocId(event.appId, uid)),
  sourceOf: () => null,
  evolve(doc, event, documentId) {
    const uid = documentId.slice(event.appId.length + 1);
    const others = event.type === 'UsersBlocked' ? event.data.blockedUids : event.data.unblockedUids;
    const blocked = new Set(doc?.blocked ?? []);
    const blockedBy = new Set(doc?.blockedBy ?? []);
    const [side, changed] = uid === event.data.uid ? [blocked, others] : [blockedBy, [event.data.uid]];
    for (const other of changed) {
      if (event.type === 'UsersBlocked') side.add(other);
      else side.delete(other);
    }
    return { appId: event.appId, uid, blocked: [...blocked].sort(), blockedBy: [...blockedBy].sort() };
  },
};
