import { ApiError } from '@chat/contracts';
import type { GroupProfile, GroupScope } from '@chat/contracts';
import { groupNotFound } from './groupState.js';
import type { GroupView } from './groupState.js';

/** Who outranks whom in a group, and the checks every decision makes of the acting user. */

const scopeRank: Record<GroupScope, number> = { participant: 1, moderator: 2, admin: 3 };
const OWNER_RANK = 4;

/** 0 for a non-member; the owner outranks every admin. */
export function rankOf(state: GroupView, uid: string): number {
  const member = state.members[uid];
  if (!member) return 0;
  return state.profile?.owner === uid ? OWNER_RANK : scopeRank[member.scope];
}

export function membersCountAfter(state: GroupView, delta: number): number {
  return state.membersCount + delta;
}

export function activeGroup(state: GroupView, guid: string): GroupProfile {
  if (!state.exists || !state.profile) throw groupNotFound(guid);
  return state.profile;
}

/** The acting user must be a member in good standing; the app (no `by`) always may act. */
export function actingRank(state: GroupView, guid: string, by: string | undefined): number {
  if (by === undefined) return Number.POSITIVE_INFINITY;
  if (state.banned[by] !== undefined) {
    throw new ApiError('ERR_BANNED_GROUPMEMBER', `The user ${by} is banned from the group ${guid}.`);
  }
  const rank = rankOf(state, by);
  if (rank === 0) throw new ApiError('ERR_GROUP_NOT_JOINED', `The user ${by} is not a member of the group ${guid}.`);
  return rank;
}

export function requireAdmin(rank: number, by: string | undefined, guid: string): void {
  if (rank < scopeRank.admin) {
    throw new ApiError('ERR_GROUP_NO_ADMIN_SCOPE', `The user ${String(by)} needs the admin scope in the group ${guid}.`);
  }
}

export function requireModerator(rank: number, by: string | undefined, guid: string): void {
  if (rank < scopeRank.moderator) {
    throw new ApiError('ERR_GROUP_NO_MODERATOR_SCOPE', `The user ${String(by)} needs at least the moderator scope in the group ${guid}.`);
  }
}

export function noClearance(message: string): ApiError {
  return new ApiError('ERR_GROUP_NO_CLEARANCE', message);
}

/** Acting on another user needs a higher rank than theirs; nobody acts on the owner. */
export function requireOutranks(state: GroupView, profile: GroupProfile, actorRank: number, target: string): void {
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
