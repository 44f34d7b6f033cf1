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
import type { Decider, DomainEvent } from '@chat/eventsourcing';

/**
 * The group aggregate: one stream per (app, guid). Its state — the one stored with every commit as a
 * snapshot — holds the profile, the member count and the scope permissions, never the members: a
 * group of 10,000 members must not rewrite 10,000 entries per join. What a command needs to know of
 * individual users (the actor's and targets' membership and bans) comes with the command as its
 * `roster`, read from the member read models as of the stream's version (the application waits until
 * they have applied it, and the command runner re-reads it after a conflict). Every rule about who
 * may do what to whom is decided here, so two racing requests cannot both pass a check only one may.
 */

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

export interface ImportedMember {
  uid: string;
  scope: GroupScope;
  joinedAt: number;
  banned: boolean;
}

export interface MemberRequest {
  uid: string;
  scope: GroupScope;
}

/**
 * `by` is the acting user (onBehalfOf); absent when the app itself acts, with every right. `roster`
 * covers `by` and every uid the command names (absent: nobody is a member or banned).
 */
export type GroupCommand = GroupCommandBody & { roster?: Roster };

type GroupCommandBody =
  | {
      type: 'CreateGroup';
      profile: GroupProfile;
      passwordHash?: string;
      members: MemberRequest[];
      usersToBan: string[];
      by?: string;
      now: number;
    }
  | {
      type: 'UpdateGroup';
      changes: Partial<Omit<GroupProfile, 'guid'>> & { passwordHash?: string };
      removed: Array<'icon' | 'description' | 'metadata'>;
      by?: string;
      now: number;
    }
  | { type: 'DeleteGroup'; by?: string; now: number }
  /** A group from a data import with the caller's creation time; an existing guid makes it a no-op. */
  | { type: 'ImportGroup'; profile: GroupProfile; passwordHash?: string; createdAt: number }
  /**
   * Members from a data import, checked by the caller (users exist, `joinedAt` within the group's
   * life); those already members, or already banned, are left as they are (reruns).
   */
  | { type: 'ImportMembers'; members: ImportedMember[] }
  | {
      type: 'AddMembers';
      members: MemberRequest[];
      usersToBan: string[];
      /** Uids known to exist; the others are reported as unknown. */
      knownUsers: string[];
      /**
       * A password the joining user gave: `verifiedHash` is the hash it matched (absent when it
       * matched none). The check is done outside because hashing is slow and not pure.
       */
      password?: { verifiedHash?: string };
      by?: string;
      now: number;
    }
  | { type: 'KickMember'; uid: string; by?: string; now: number }
  | { type: 'ChangeMemberScope'; uid: string; scope: GroupScope; by?: string; now: number }
  | { type: 'BanMember'; uid: string; by?: string; now: number }
  | { type: 'UnbanMember'; uid: string; by?: string; now: number }
  | { type: 'SetScopePermissions'; scope: GroupScope; permissions: Partial<Record<GroupScopePermissionId, PermissionValue>>; now: number }
  | { type: 'UnsetScopePermission'; scope: GroupScope; permission: GroupScopePermissionId; now: number };

export function groupStream(appId: string, guid: string): string {
  return `group:${appId}:${guid}`;
}

export function groupNotFound(guid: string): ApiError {
  return new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${guid} does not exist.`);
}

const scopeRank: Record<GroupScope, number> = { participant: 1, moderator: 2, admin: 3 };
const OWNER_RANK = 4;

/** 0 for a non-member; the owner outranks every admin. */
export function rankOf(state: GroupView, uid: string): number {
  const member = state.members[uid];
  if (!member) return 0;
  return state.profile?.owner === uid ? OWNER_RANK : scopeRank[member.scope];
}

function membersCountAfter(state: GroupView, delta: number): number {
  return state.membersCount + delta;
}

function activeGroup(state: GroupView, guid: string): GroupProfile {
  if (!state.exists || !state.profile) throw groupNotFound(guid);
  return state.profile;
}

/** The acting user must be a member in good standing; the app (no `by`) always may act. */
function actingRank(state: GroupView, guid: string, by: string | undefined): number {
  if (by === undefined) return Number.POSITIVE_INFINITY;
  if (state.banned[by] !== undefined) {
    throw new ApiError('ERR_BANNED_GROUPMEMBER', `The user ${by} is banned from the group ${guid}.`);
  }
  const rank = rankOf(state, by);
  if (rank === 0) throw new ApiError('ERR_GROUP_NOT_JOINED', `The user ${by} is not a member of the group ${guid}.`);
  return rank;
}

function requireAdmin(rank: number, by: string | undefined, guid: string): void {
  if (rank < scopeRank.admin) {
    throw new ApiError('ERR_GROUP_NO_ADMIN_SCOPE', `The user ${String(by)} needs the admin scope in the group ${guid}.`);
  }
}

function requireModerator(rank: number, by: string | undefined, guid: string): void {
  if (rank < scopeRank.moderator) {
    throw new ApiError('ERR_GROUP_NO_MODERATOR_SCOPE', `The user ${String(by)} needs at least the moderator scope in the group ${guid}.`);
  }
}

function noClearance(message: string): ApiError {
  return new ApiError('ERR_GROUP_NO_CLEARANCE', message);
}

/** Acting on another user needs a higher rank than theirs; nobody acts on the owner. */
function requireOutranks(state: GroupView, profile: GroupProfile, actorRank: number, target: string): void {
  if (profile.owner === target) throw noClearance(`Nobody may do this to ${target}, the owner of the group ${profile.guid}.`);
  if (actorRank <= rankOf(state, target)) {
    throw noClearance(`The acting user's scope in the group ${profile.guid} is not above the scope of ${target}.`);
  }
}

/**
 * Why one requested member (or user to ban) cannot be processed, or null when it can. The same
 * function explains the per-uid results after the command ran: a refused uid's state did not change.
 */
export function memberRefusal(
  state: GroupView,
  uid: string,
  kind: 'add' | 'ban',
  knownUsers: ReadonlySet<string>,
  actorRank: number,
): ApiError | null {
  const guid = state.profile?.guid ?? '';
  if (!knownUsers.has(uid)) return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
  if (kind === 'add') {
    if (state.banned[uid] !== undefined) return new ApiError('ERR_BANNED_GROUPMEMBER', `The user ${uid} is banned from the group ${guid}.`);
    if (state.members[uid]) return new ApiError('ERR_ALREADY_JOINED', `The user ${uid} is already a member of the group ${guid}.`);
    return null;
  }
  if (state.banned[uid] !== undefined) return new ApiError('ERR_ALREADY_BANNED', `The user ${uid} is already banned from the group ${guid}.`);
  if (state.profile?.owner === uid) return noClearance(`The owner of the group ${guid} cannot be banned.`);
  if (actorRank <= rankOf(state, uid)) return noClearance(`The acting user's scope in the group ${guid} is not above the scope of ${uid}.`);
  return null;
}

function bannedEvent(state: GroupView, guid: string, uid: string, by: string | undefined, now: number, membersCount: number): GroupEvent {
  return {
    type: 'GroupMemberBanned',
    data: {
      guid,
      uid,
      ...(by !== undefined ? { bannedBy: by } : {}),
      bannedAt: now,
      wasMember: state.members[uid] !== undefined,
      membersCount,
    },
  };
}

function decideCreate(command: Extract<GroupCommand, { type: 'CreateGroup' }>, state: GroupView): GroupEvent[] {
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

function decideImportGroup(command: Extract<GroupCommand, { type: 'ImportGroup' }>, state: GroupView): GroupEvent[] {
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

/** One `GroupMembersAdded` per joining time (members keep their own `joinedAt`), bans after them. */
function decideImportMembers(command: Extract<GroupCommand, { type: 'ImportMembers' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const fresh = command.members.filter((m) => !state.members[m.uid] && state.banned[m.uid] === undefined);
  const byTime = new Map<number, ImportedMember[]>();
  for (const member of fresh.filter((m) => !m.banned)) byTime.set(member.joinedAt, [...(byTime.get(member.joinedAt) ?? []), member]);
  const events: GroupEvent[] = [];
  let count = state.membersCount;
  for (const [joinedAt, members] of [...byTime].sort(([a], [b]) => a - b)) {
    count += members.length;
    events.push({
      type: 'GroupMembersAdded',
      data: { guid, members: members.map(({ uid, scope }) => ({ uid, scope })), addedAt: joinedAt, membersCount: count, imported: true },
    });
  }
  for (const member of fresh.filter((m) => m.banned)) {
    events.push({ type: 'GroupMemberBanned', data: { guid, uid: member.uid, bannedAt: member.joinedAt, wasMember: false, membersCount: count, imported: true } });
  }
  return events;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function decideUpdate(command: Extract<GroupCommand, { type: 'UpdateGroup' }>, state: GroupView, guid: string): GroupEvent[] {
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

function decideAddMembers(command: Extract<GroupCommand, { type: 'AddMembers' }>, state: GroupView, guid: string): GroupEvent[] {
  const profile = activeGroup(state, guid);
  const { by, now } = command;
  const requested = [...command.members.map((m) => m.uid), ...command.usersToBan];

  if (by !== undefined && requested.length === 1 && requested[0] === by && command.usersToBan.length === 0) {
    return decideJoin(command, state, profile, by);
  }
  const rank = actingRank(state, guid, by);
  if (command.members.some((m) => m.scope !== 'participant')) requireAdmin(rank, by, guid);
  requireModerator(rank, by, guid);
  if (by !== undefined && command.usersToBan.includes(by)) {
    throw new ApiError('ERR_GROUP_NO_SELF_ACTION', `The user ${by} cannot ban themselves.`);
  }

  const known = new Set(command.knownUsers);
  const added = command.members.filter((m) => memberRefusal(state, m.uid, 'add', known, rank) === null);
  const toBan = command.usersToBan.filter((uid) => memberRefusal(state, uid, 'ban', known, rank) === null);
  const events: GroupEvent[] = [];
  if (added.length > 0) {
    events.push({
      type: 'GroupMembersAdded',
      data: { guid, members: added, ...(by !== undefined ? { addedBy: by } : {}), addedAt: now, membersCount: membersCountAfter(state, added.length) },
    });
  }
  let count = membersCountAfter(state, added.length);
  for (const uid of toBan) {
    if (state.members[uid]) count -= 1;
    events.push(bannedEvent(state, guid, uid, by, now, count));
  }
  return events;
}

function decideJoin(
  command: Extract<GroupCommand, { type: 'AddMembers' }>,
  state: GroupView,
  profile: GroupProfile,
  uid: string,
): GroupEvent[] {
  const guid = profile.guid;
  if (state.banned[uid] !== undefined) throw new ApiError('ERR_BANNED_GROUPMEMBER', `The user ${uid} is banned from the group ${guid}.`);
  if (state.members[uid]) throw new ApiError('ERR_ALREADY_JOINED', `The user ${uid} is already a member of the group ${guid}.`);
  const scope = command.members[0]?.scope ?? 'participant';
  if (scope !== 'participant') requireAdmin(0, uid, guid);
  if (profile.type === 'private') {
    throw new ApiError('ERR_GROUP_JOIN_NOT_ALLOWED', `The group ${guid} is private: only its admins and moderators can add members.`);
  }
  if (profile.type === 'password') {
    if (!command.password) throw new ApiError('ERR_EMPTY_GROUP_PASS', `The group ${guid} needs a password to join.`);
    if (command.password.verifiedHash === undefined || command.password.verifiedHash !== state.passwordHash) {
      throw new ApiError('ERR_WRONG_GROUP_PASS', `The password of the group ${guid} is wrong.`);
    }
  }
  return [{ type: 'GroupMemberJoined', data: { guid, uid, scope: 'participant', joinedAt: command.now, membersCount: membersCountAfter(state, 1) } }];
}

function decideKick(command: Extract<GroupCommand, { type: 'KickMember' }>, state: GroupView, guid: string): GroupEvent[] {
  const profile = activeGroup(state, guid);
  const { by, uid, now } = command;
  const rank = actingRank(state, guid, by);
  if (by === uid) {
    if (profile.owner === uid) throw noClearance(`The owner of the group ${guid} cannot leave it; hand over the ownership first.`);
    return [{ type: 'GroupMemberLeft', data: { guid, uid, leftAt: now, membersCount: membersCountAfter(state, -1) } }];
  }
  requireModerator(rank, by, guid);
  if (!state.members[uid]) throw new ApiError('ERR_NOT_A_MEMBER', `The user ${uid} is not a member of the group ${guid}.`);
  requireOutranks(state, profile, rank, uid);
  return [
    {
      type: 'GroupMemberKicked',
      data: { guid, uid, ...(by !== undefined ? { kickedBy: by } : {}), kickedAt: now, membersCount: membersCountAfter(state, -1) },
    },
  ];
}

function decideChangeScope(command: Extract<GroupCommand, { type: 'ChangeMemberScope' }>, state: GroupView, guid: string): GroupEvent[] {
  const profile = activeGroup(state, guid);
  const { by, uid, scope, now } = command;
  const rank = actingRank(state, guid, by);
  requireAdmin(rank, by, guid);
  const member = state.members[uid];
  if (!member) throw new ApiError('ERR_NOT_A_MEMBER', `The user ${uid} is not a member of the group ${guid}.`);
  if (by === uid) throw new ApiError('ERR_GROUP_NO_SELF_ACTION', `The user ${uid} cannot change their own scope.`);
  requireOutranks(state, profile, rank, uid);
  if (member.scope === scope) throw new ApiError('ERR_SAME_SCOPE', `The user ${uid} already has the scope ${scope} in the group ${guid}.`);
  return [
    {
      type: 'GroupMemberScopeChanged',
      data: { guid, uid, scope, previousScope: member.scope, ...(by !== undefined ? { changedBy: by } : {}), changedAt: now },
    },
  ];
}

function decideBan(command: Extract<GroupCommand, { type: 'BanMember' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const { by, uid, now } = command;
  const rank = actingRank(state, guid, by);
  if (by === uid) throw new ApiError('ERR_GROUP_NO_SELF_ACTION', `The user ${uid} cannot ban themselves.`);
  requireModerator(rank, by, guid);
  const refusal = memberRefusal(state, uid, 'ban', new Set([uid]), rank);
  if (refusal) throw refusal;
  return [bannedEvent(state, guid, uid, by, now, membersCountAfter(state, state.members[uid] ? -1 : 0))];
}

function decideUnban(command: Extract<GroupCommand, { type: 'UnbanMember' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const { by, uid, now } = command;
  const rank = actingRank(state, guid, by);
  requireModerator(rank, by, guid);
  if (state.banned[uid] === undefined) throw new ApiError('ERR_NOT_A_BANNED_USER', `The user ${uid} is not banned from the group ${guid}.`);
  return [{ type: 'GroupMemberUnbanned', data: { guid, uid, ...(by !== undefined ? { unbannedBy: by } : {}), unbannedAt: now } }];
}

function decidePermissions(
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

function decide(command: GroupCommand, current: GroupState, guid: string): GroupEvent[] {
  const state = viewOf(current, command.roster);
  switch (command.type) {
    case 'CreateGroup':
      return decideCreate(command, state);
    case 'UpdateGroup':
      return decideUpdate(command, state, guid);
    case 'DeleteGroup': {
      activeGroup(state, guid);
      const rank = actingRank(state, guid, command.by);
      requireAdmin(rank, command.by, guid);
      return [{ type: 'GroupDeleted', data: { guid, ...(command.by !== undefined ? { deletedBy: command.by } : {}), deletedAt: command.now } }];
    }
    case 'ImportGroup':
      return decideImportGroup(command, state);
    case 'ImportMembers':
      return decideImportMembers(command, state, guid);
    case 'AddMembers':
      return decideAddMembers(command, state, guid);
    case 'KickMember':
      return decideKick(command, state, guid);
    case 'ChangeMemberScope':
      return decideChangeScope(command, state, guid);
    case 'BanMember':
      return decideBan(command, state, guid);
    case 'UnbanMember':
      return decideUnban(command, state, guid);
    case 'SetScopePermissions':
    case 'UnsetScopePermission':
      return decidePermissions(command, state, guid);
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolveState(state: GroupState, event: GroupEvent): GroupState {
  switch (event.type) {
    case 'GroupCreated': {
      const { passwordHash, createdBy, createdAt, ...profile } = event.data;
      void createdBy;
      return {
        ...initialState(),
        exists: true,
        profile,
        ...(passwordHash !== undefined ? { passwordHash } : {}),
        createdAt,
        updatedAt: createdAt,
      };
    }
    case 'GroupUpdated': {
      if (!state.profile) return state;
      const { passwordHash, ...changes } = event.data.changes;
      const profile: GroupProfile = { ...state.profile, ...changes };
      const next: GroupState = { ...state, profile, updatedAt: event.data.updatedAt };
      for (const key of event.data.removed) {
        if (key === 'passwordHash') delete next.passwordHash;
        else if (key === 'tags') profile.tags = [];
        else delete profile[key];
      }
      if (passwordHash !== undefined) next.passwordHash = passwordHash;
      return next;
    }
    case 'GroupDeleted':
      return { ...initialState(), createdAt: state.createdAt, updatedAt: event.data.deletedAt };
    // Events carry the count after them; events written before it was carried imply it.
    case 'GroupMemberJoined':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount + 1 };
    case 'GroupMembersAdded':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount + event.data.members.length };
    case 'GroupMemberLeft':
    case 'GroupMemberKicked':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount - 1 };
    case 'GroupMemberBanned':
      return { ...state, membersCount: event.data.membersCount ?? state.membersCount - (event.data.wasMember ? 1 : 0) };
    case 'GroupMemberScopeChanged':
    case 'GroupMemberUnbanned':
      return state;
    case 'GroupScopePermissionsChanged': {
      const { scope, changedAt } = event.data;
      const values = { ...state.permissions[scope] };
      for (const [id, value] of Object.entries(event.data.permissions)) values[id as GroupScopePermissionId] = { value, at: changedAt };
      for (const id of event.data.removed) delete values[id as GroupScopePermissionId];
      return { ...state, permissions: { ...state.permissions, [scope]: values } };
    }
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolve(state: GroupState, event: GroupEvent): GroupState {
  return { ...evolveState(state, event), version: state.version + 1 };
}

function initialState(): GroupState {
  return { exists: false, profile: null, createdAt: 0, updatedAt: 0, membersCount: 0, version: 0, permissions: {} };
}

/** The decider of one group's stream (its guid is the stream's, passed in so errors can name it). */
export function groupDecider(guid: string): Decider<GroupState, GroupCommand, GroupEvent> {
  return {
    initialState,
    evolve,
    decide: (command, state) => decide(command, state, guid),
    // 2: members and bans left the state (they come with each command's roster).
    snapshotVersion: 2,
  };
}
