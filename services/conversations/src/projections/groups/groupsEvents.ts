import type { EventOf, groupStreamEventTypes } from '@chat/contracts';

export type GroupEventType = (typeof groupStreamEventTypes)[number];
export type GroupEventEnvelope = EventOf<GroupEventType>;

/** Member and ban documents: one per (app, group, user); the user is the id's last part. */
export function groupMemberDocId(appId: string, guid: string, uid: string): string {
  return `${appId}:${guid}:${uid}`;
}

export function uidOfMemberDocId(documentId: string): string {
  return documentId.slice(documentId.lastIndexOf(':') + 1);
}
