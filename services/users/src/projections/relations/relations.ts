import { blockEventTypes, friendEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/**
 * One directed edge per document (`owner` → `other`). Ended relations stay as inactive tombstones so
 * redelivery cannot revive them.
 */
export interface RelationDoc {
  appId: string;
  owner: string;
  other: string;
  active: boolean;
  /** When the edge took its current state (befriended, blocked, or ended). */
  since: number;
  /** `occurredAt` of the last event applied: a friendship changes from both users' streams. */
  changedAt: string;
}

export function relationDocId(appId: string, owner: string, other: string): string {
  return `${appId}:${owner}:${other}`;
}

type FriendEvent = EventOf<(typeof friendEventTypes)[number]>;

/** The other end of an edge document id, given the acting user. */
function edgeEnds(event: FriendEvent, documentId: string): { owner: string; other: string } {
  const prefix = `${event.appId}:`;
  const [owner = '', other = ''] = documentId.slice(prefix.length).split(':');
  return { owner, other };
}

/**
 * Friendship is mutual: each event writes both directions. Both users' streams change the same
 * documents, so each document keeps a position per acting user and the later `occurredAt` wins.
 */
export const friendsProjection: Projection<RelationDoc, FriendEvent> = {
  name: 'friends',
  eventTypes: friendEventTypes,
  documentIds: (event) =>
    event.data.friendUids.flatMap((friend) => [
      relationDocId(event.appId, event.data.uid, friend),
      relationDocId(event.appId, friend, event.data.uid),
    ]),
  sourceOf: (event) => `u_${event.data.uid}`,
  evolve(doc, event, documentId) {
    if (doc && doc.changedAt > event.occurredAt) return doc;
    const { owner, other } = edgeEnds(event, documentId);
    const active = event.type === 'FriendsAdded';
    // `since` is when the edge took its current state, so any order of replay agrees on it.
    const since = active ? event.data.addedAt : event.data.removedAt;
    return { appId: event.appId, owner, other, active, since, changedAt: event.occurredAt };
  },
};

type BlockEvent = EventOf<(typeof blockEventTypes)[number]>;

export const blocksProjection: Projection<RelationDoc, BlockEvent> = {
  name: 'blocks',
  eventTypes: blockEventTypes,
  documentIds: (event) =>
    (event.type === 'UsersBlocked' ? event.data.blockedUids : event.data.unblockedUids).map((other) =>
      relationDocId(event.appId, event.data.uid, other),
    ),
  sourceOf: () => 'user',
  evolve(doc, event, documentId) {
    const other = documentId.slice(`${event.appId}:${event.data.uid}:`.length);
    if (event.type === 'UsersBlocked') {
      return { appId: event.appId, owner: event.data.uid, other, active: true, since: event.data.blockedAt, changedAt: event.occurredAt };
    }
    return doc ? { ...doc, active: false, since: event.data.unblockedAt, changedAt: event.occurredAt } : null;
  },
};
