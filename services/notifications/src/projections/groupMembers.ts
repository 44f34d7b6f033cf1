import { groupEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const GROUP_MEMBERS_COLLECTION = 'notification_group_members';

/** Who is in a group now: the recipients of its messages. */
export interface GroupMembersDocument {
  appId: string;
  guid: string;
  members: string[];
}

type Handled = EventOf<(typeof groupEventTypes)[number]>;

export function groupMembersId(appId: string, guid: string): string {
  return `${appId}:${guid}`;
}

function change(event: Handled): { add: string[]; remove: string[] } | 'deleted' | null {
  switch (event.type) {
    case 'GroupMemberJoined':
      return { add: [event.data.uid], remove: [] };
    case 'GroupMembersAdded':
      return { add: event.data.members.map((m) => m.uid), remove: [] };
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
    case 'GroupMemberBanned':
      return { add: [], remove: [event.data.uid] };
    case 'GroupDeleted':
      return 'deleted';
    case 'GroupCreated':
    case 'GroupUpdated':
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
    }
  }
}

/** One document per group (`_id` = `<appId>:<guid>`), fed by the group's own stream. */
export const groupMembersProjection: Projection<GroupMembersDocument, Handled> = {
  name: GROUP_MEMBERS_COLLECTION,
  eventTypes: groupEventTypes,
  documentIds: (event) => [groupMembersId(event.appId, event.data.guid)],
  evolve: (document, event) => {
    const delta = change(event);
    if (delta === 'deleted') return null;
    if (delta === null) return document;
    const members = new Set(document?.members ?? []);
    for (const uid of delta.add) members.add(uid);
    for (const uid of delta.remove) members.delete(uid);
    return { appId: event.appId, guid: event.data.guid, members: [...members] };
  },
};
