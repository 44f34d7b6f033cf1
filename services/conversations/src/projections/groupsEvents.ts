import { eventTypeIn, groupStreamEventTypes } from '@chat/contracts';
import type { EventEnvelope, EventOf } from '@chat/contracts';

const isGroupStreamEvent = eventTypeIn(groupStreamEventTypes);

export type GroupEventType = (typeof groupStreamEventTypes)[number];
export type GroupEventEnvelope = EventOf<GroupEventType>;

export function isGroupEvent(event: EventEnvelope): event is GroupEventEnvelope {
  return isGroupStreamEvent(event);
}

/** Member and ban documents: one per (app, group, user); the user is the id's last part. */
export function groupMemberDocId(appId: string, guid: string, uid: string): string {
  return `${appId}:${guid}:${uid}`;
}

export function uidOfMemberDocId(documentId: string): string {
  return documentId.slice(documentId.lastIndexOf(':') + 1);
}
