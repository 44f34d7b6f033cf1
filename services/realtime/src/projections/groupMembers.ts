import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { membershipChangesOf, membershipEventTypes } from '../domain/membership.js';

/** A group's members, as realtime needs them: who to load when a user connects (ADR 0069). */
export interface GroupMembersDoc {
  appId: string;
  guid: string;
  members: string[];
}

type Handled = EventOf<(typeof membershipEventTypes)[number]>;

export function groupMembersDocId(appId: string, guid: string): string {
  return `${appId}:${guid}`;
}

/**
 * The membership read model realtime projects itself from the conversations topic (its own shared
 * consumer group): per group, the uids in it. A deleted group's document goes.
 */
export const groupMembersProjection: Projection<GroupMembersDoc, Handled> = {
  name: 'groupMembers',
  eventTypes: membershipEventTypes,
  documentIds: (event) => [groupMembersDocId(event.appId, event.data.guid)],
  evolve(doc, event) {
    let members = new Set(doc?.members ?? []);
    for (const change of membershipChangesOf(event)) {
      if (change.uid === undefined) return null;
      if (change.member) members.add(change.uid);
      else members.delete(change.uid);
    }
    members = new Set([...members].sort());
    return { appId: event.appId, guid: event.data.guid, members: [...members] };
  },
};
