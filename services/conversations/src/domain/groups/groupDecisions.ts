import { ApiError } from '@chat/contracts';
import type { GroupScope, GroupScopePermissionId, GroupUpdated } from '@chat/contracts';
import type { GroupCommand } from './groupCommands.js';
import type { GroupEvent, GroupView, PermissionValue } from './groupState.js';
import { actingRank, activeGroup, membersCountAfter, noClearance, requireAdmin } from './memberRanks.js';

/** Decisions about the group itself: its creation, profile, ownership, deletion and scope permissions. */

export function decideCreate(command: Extract<GroupCommand, { type: 'CreateGroup' }>, state: GroupView): GroupEvent[] {
  const { profile, now, by } = command;
  if (state.exists) throw new ApiError('ERR_GUID_ALREADY_EXISTS', `A group with guid ${profile.guid} already exists.`);
  const events: GroupEvent[] = [
    {
      type: 'GroupCreated',
      data: {
        ...profile,
        ...(command.passwordHash !== undefined ? { passwordHash: command.passwordHash } : {}),
        ...(by !== undefined ? { createdBy: by } : {}),
        createdAt: now,
      },
    },
  ];
  const banned = new Set(command.usersToBan);
  const members = new Map<string, GroupScope>();
  if (profile.owner) members.set(profile.owner, 'admin');
  for (const member of command.members) {
    if (member.uid !== profile.owner && !banned.has(member.uid)) members.set(member.uid, member.scope);
  }
  if (members.size > 0) {
    events.push({
      type: 'GroupMembersAdded',
      data: {
        guid: profile.guid,
        members: [...members].map(([uid, scope]) => ({ uid, scope })),
        ...(by !== undefined ? { addedBy: by } : {}),
        addedAt: now,
        membersCount: members.size,
      },
    });
  }
  for (const uid of banned) {
    if (uid === profile.owner) throw noClearance(`The owner of the group ${profile.guid} cannot be banned.`);
    events.push({
      type: 'GroupMemberBanned',
      data: { guid: profile.guid, uid, ...(by !== undefined ? { bannedBy: by } : {}), bannedAt: now, wasMember: false, membersCount: members.size },
    });
  }
  return events;
}

export function decideImportGroup(command: Extract<GroupCommand, { type: 'ImportGroup' }>, state: GroupView): GroupEvent[] {
  if (state.exists) return [];
  const { profile, createdAt } = command;
  const events: GroupEvent[] = [
    {
      type: 'GroupCreated',
      data: { ...profile, ...(command.passwordHash !== undefined ? { passwordHash: command.passwordHash } : {}), createdAt, imported: true },
    },
  ];
  if (profile.owner) {
    events.push({
      type: 'GroupMembersAdded',
      data: { guid: profile.guid, members: [{ uid: profile.owner, scope: 'admin' }], addedAt: createdAt, membersCount: 1, imported: true },
    });
  }
  return events;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function decideUpdate(command: Extract<GroupCommand, { type: 'UpdateGroup' }>, state: GroupView, guid: string): GroupEvent[] {
  const profile = activeGroup(state, guid);
  const { by, now } = command;
  const rank = actingRank(state, guid, by);
  requireAdmin(rank, by, guid);

  const changes: GroupUpdated['changes'] = {};
  const requested = command.changes;
  for (const key of ['name', 'type', 'icon', 'description', 'metadata', 'tags'] as const) {
    const value = requested[key];
    if (value !== undefined && !sameValue(value, profile[key])) Object.assign(changes, { [key]: value });
  }
  const removed: GroupUpdated['removed'] = command.removed.filter((key) => profile[key] !== undefined && requested[key] === undefined);

  const finalType = requested.type ?? profile.type;
  if (finalType === 'password') {
    if (requested.passwordHash !== undefined) changes.passwordHash = requested.passwordHash;
    else if (state.passwordHash === undefined) {
      throw new ApiError('ERR_EMPTY_GROUP_PASS', `A password is required to make the group ${guid} a password group.`);
    }
  } else if (state.passwordHash !== undefined) {
    removed.push('passwordHash');
  }

  const events: GroupEvent[] = [];
  const newOwner = requested.owner;
  if (newOwner !== undefined && newOwner !== profile.owner) {
    if (by !== undefined && by !== profile.owner) throw noClearance(`Only the owner of the group ${guid} may hand over its ownership.`);
    if (state.banned[newOwner] !== undefined) {
      throw new ApiError('ERR_BANNED_GROUPMEMBER', `The user ${newOwner} is banned from the group ${guid}.`);
    }
    const member = state.members[newOwner];
    if (!member) {
      events.push({
        type: 'GroupMembersAdded',
        data: { guid, members: [{ uid: newOwner, scope: 'admin' }], ...(by !== undefined ? { addedBy: by } : {}), addedAt: now, membersCount: membersCountAfter(state, 1) },
      });
    } else if (member.scope !== 'admin') {
      events.push({
        type: 'GroupMemberScopeChanged',
        data: { guid, uid: newOwner, scope: 'admin', previousScope: member.scope, ...(by !== undefined ? { changedBy: by } : {}), changedAt: now },
      });
    }
    changes.owner = newOwner;
  }
  if (Object.keys(changes).length === 0 && removed.length === 0) return events;
  events.push({ type: 'GroupUpdated', data: { guid, changes, removed, ...(by !== undefined ? { updatedBy: by } : {}), updatedAt: now } });
  return events;
}

export function decideDelete(command: Extract<GroupCommand, { type: 'DeleteGroup' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const rank = actingRank(state, guid, command.by);
  requireAdmin(rank, command.by, guid);
  return [{ type: 'GroupDeleted', data: { guid, ...(command.by !== undefined ? { deletedBy: command.by } : {}), deletedAt: command.now } }];
}

export function decidePermissions(
  command: Extract<GroupCommand, { type: 'SetScopePermissions' | 'UnsetScopePermission' }>,
  state: GroupView,
  guid: string,
): GroupEvent[] {
  activeGroup(state, guid);
  const current = state.permissions[command.scope] ?? {};
  if (command.type === 'UnsetScopePermission') {
    if (current[command.permission] === undefined) return [];
    return [{ type: 'GroupScopePermissionsChanged', data: { guid, scope: command.scope, permissions: {}, removed: [command.permission], changedAt: command.now } }];
  }
  const changed: Record<string, PermissionValue> = {};
  for (const [id, value] of Object.entries(command.permissions) as Array<[GroupScopePermissionId, PermissionValue]>) {
    const set = current[id];
    if (set === undefined || !sameValue(set.value, value)) changed[id] = value;
  }
  if (Object.keys(changed).length === 0) return [];
  return [{ type: 'GroupScopePermissionsChanged', data: { guid, scope: command.scope, permissions: changed, removed: [], changedAt: command.now } }];
}
