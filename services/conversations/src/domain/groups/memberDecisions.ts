import { ApiError } from '@chat/contracts';
import type { GroupProfile } from '@chat/contracts';
import type { GroupCommand, ImportedMember } from './groupCommands.js';
import type { GroupEvent, GroupView } from './groupState.js';
import { actingRank, activeGroup, memberRefusal, membersCountAfter, noClearance, requireAdmin, requireModerator, requireOutranks } from './memberRanks.js';

/** Decisions about who belongs to a group: joins, adds, imports, kicks, scope changes and bans. */

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

/** One `GroupMembersAdded` per joining time (members keep their own `joinedAt`), bans after them. */
export function decideImportMembers(command: Extract<GroupCommand, { type: 'ImportMembers' }>, state: GroupView, guid: string): GroupEvent[] {
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

export function decideAddMembers(command: Extract<GroupCommand, { type: 'AddMembers' }>, state: GroupView, guid: string): GroupEvent[] {
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

export function decideKick(command: Extract<GroupCommand, { type: 'KickMember' }>, state: GroupView, guid: string): GroupEvent[] {
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

export function decideChangeScope(command: Extract<GroupCommand, { type: 'ChangeMemberScope' }>, state: GroupView, guid: string): GroupEvent[] {
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

export function decideBan(command: Extract<GroupCommand, { type: 'BanMember' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const { by, uid, now } = command;
  const rank = actingRank(state, guid, by);
  if (by === uid) throw new ApiError('ERR_GROUP_NO_SELF_ACTION', `The user ${uid} cannot ban themselves.`);
  requireModerator(rank, by, guid);
  const refusal = memberRefusal(state, uid, 'ban', new Set([uid]), rank);
  if (refusal) throw refusal;
  return [bannedEvent(state, guid, uid, by, now, membersCountAfter(state, state.members[uid] ? -1 : 0))];
}

export function decideUnban(command: Extract<GroupCommand, { type: 'UnbanMember' }>, state: GroupView, guid: string): GroupEvent[] {
  activeGroup(state, guid);
  const { by, uid, now } = command;
  const rank = actingRank(state, guid, by);
  requireModerator(rank, by, guid);
  if (state.banned[uid] === undefined) throw new ApiError('ERR_NOT_A_BANNED_USER', `The user ${uid} is not banned from the group ${guid}.`);
  return [{ type: 'GroupMemberUnbanned', data: { guid, uid, ...(by !== undefined ? { unbannedBy: by } : {}), unbannedAt: now } }];
}
