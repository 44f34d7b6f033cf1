import type { EventEnvelope, EventType, KnownEvent } from '@chat/contracts';

const groupEventTypes = [
  'GroupCreated',
  'GroupUpdated',
  'GroupDeleted',
  'GroupMemberJoined',
  'GroupMembersAdded',
  'GroupMemberLeft',
  'GroupMemberKicked',
  'GroupMemberScopeChanged',
  'GroupMemberBanned',
  'GroupMemberUnbanned',
  'GroupScopePermissionsChanged',
] as const satisfies readonly EventType[];

export type GroupEventType = (typeof groupEventTypes)[number];
export type GroupEventEnvelope = Extract<KnownEvent, { type: GroupEventType }>;

export function isGroupEvent(event: EventEnvelope): event is GroupEventEnvelope {
  return (groupEventTypes as readonly string[]).includes(event.type);
}

/** Member and ban documents: one per (app, group, user); the user is the id's last part. */
export function groupMemberDocId(appId: string, guid: string, uid: string): string {
  return `${appId}:${guid}:${uid}`;
}

export function uidOfMemberDocId(documentId: string): string {
  return documentId.slice(documentId.lastIndexOf(':') + 1);
}
