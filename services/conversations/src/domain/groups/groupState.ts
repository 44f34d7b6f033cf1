import { ApiError } from '@chat/contracts';
import type {
  GroupCreated,
  GroupDeleted,
  GroupMemberBanned,
  GroupMemberJoined,
  GroupMemberKicked,
  GroupMemberLeft,
  GroupMemberScopeChanged,
  GroupMembersAdded,
  GroupMemberUnbanned,
  GroupProfile,
  GroupScope,
  GroupScopePermissionId,
  GroupScopePermissionsChanged,
  GroupUpdated,
} from '@chat/contracts';
import type { DomainEvent } from '@chat/eventsourcing';

export type GroupEvent =
  | DomainEvent<'GroupCreated', GroupCreated>
  | DomainEvent<'GroupUpdated', GroupUpdated>
  | DomainEvent<'GroupDeleted', GroupDeleted>
  | DomainEvent<'GroupMemberJoined', GroupMemberJoined>
  | DomainEvent<'GroupMembersAdded', GroupMembersAdded>
  | DomainEvent<'GroupMemberLeft', GroupMemberLeft>
  | DomainEvent<'GroupMemberKicked', GroupMemberKicked>
  | DomainEvent<'GroupMemberScopeChanged', GroupMemberScopeChanged>
  | DomainEvent<'GroupMemberBanned', GroupMemberBanned>
  | DomainEvent<'GroupMemberUnbanned', GroupMemberUnbanned>
  | DomainEvent<'GroupScopePermissionsChanged', GroupScopePermissionsChanged>;

export type PermissionValue = string | string[];

export interface GroupMember {
  scope: GroupScope;
  joinedAt: number;
}

export interface GroupState {
  exists: boolean;
  profile: GroupProfile | null;
  passwordHash?: string;
  createdAt: number;
  updatedAt: number;
  membersCount: number;
  /** The stream version this state is at: the roster of a command must be read as of it. */
  version: number;
  /** Values set per scope, with the time each was set; ids absent here have their catalogue default. */
  permissions: Partial<Record<GroupScope, Partial<Record<GroupScopePermissionId, { value: PermissionValue; at: number }>>>>;
}

/** What the member read models say, as of the state's version, about the users a command involves. */
export interface Roster {
  members: Record<string, GroupMember>;
  /** Banned uids with the time they were banned. */
  banned: Record<string, number>;
}

/** The state together with the roster of the command being decided: what every rule reads. */
export type GroupView = GroupState & Roster;

export function viewOf(state: GroupState, roster: Roster = { members: {}, banned: {} }): GroupView {
  return { ...state, ...roster };
}

/** A roster from the member and ban documents the read models hold (inactive ones are former). */
export function rosterOf(
  members: readonly { uid: string; scope: GroupScope; joinedAt: number; active: boolean }[],
  bans: readonly { uid: string; bannedAt: number; active: boolean }[],
): Roster {
  const roster: Roster = { members: {}, banned: {} };
  for (const doc of members) if (doc.active) roster.members[doc.uid] = { scope: doc.scope, joinedAt: doc.joinedAt };
  for (const doc of bans) if (doc.active) roster.banned[doc.uid] = doc.bannedAt;
  return roster;
}

export function groupStream(appId: string, guid: string): string {
  return `group:${appId}:${guid}`;
}

export function groupNotFound(guid: string): ApiError {
  return new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${guid} does not exist.`);
}

export function initialState(): GroupState {
  return { exists: false, profile: null, createdAt: 0, updatedAt: 0, membersCount: 0, version: 0, permissions: {} };
}
