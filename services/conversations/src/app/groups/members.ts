import { ApiError, epochSeconds } from '@chat/contracts';
import type { GroupScope, RequestContext } from '@chat/contracts';
import { listMeta, pagination } from '@chat/http';
import type { ListCursor } from '@chat/http';
import type { MemberRequest } from '../../domain/groups/groupCommands.js';
import { viewOf } from '../../domain/groups/groupState.js';
import type { Roster } from '../../domain/groups/groupState.js';
import { memberRefusal, rankOf } from '../../domain/groups/memberRanks.js';
import { renderBannedUser, renderMember } from '../../domain/groups/groupsView.js';
import type { BannedUserResource, MemberResource } from '../../domain/groups/groupsView.js';
import type { GroupStreams, GroupsDeps, Outcome } from './groupStreams.js';
import { uidNotFound } from './groupStreams.js';
import { passwordMatches } from './groupsPassword.js';

export interface MemberLists {
  admins: string[];
  moderators: string[];
  participants: string[];
  usersToBan: string[];
}

export type MemberResult =
  | { success: true; data?: { guid: string; uid: string; scope: GroupScope; joinedAt: number } }
  | { success: false; error: { code: string; message: string } };

export type AddMembersResult = Partial<Record<keyof MemberLists, Record<string, MemberResult>>>;

const memberListScopes: Array<[keyof MemberLists, GroupScope]> = [
  ['admins', 'admin'],
  ['moderators', 'moderator'],
  ['participants', 'participant'],
];

export function memberRequests(lists: MemberLists): MemberRequest[] {
  return memberListScopes.flatMap(([list, scope]) => lists[list].map((uid) => ({ uid, scope })));
}

/** What a command's own events did to the members they name (a ban after an add in one command wins). */
function rosterFromEvents(events: readonly { type: string; data: unknown }[]): Roster {
  const roster: Roster = { members: {}, banned: {} };
  for (const event of events) {
    if (event.type === 'GroupMemberJoined') {
      const { uid, scope, joinedAt } = event.data as { uid: string; scope: GroupScope; joinedAt: number };
      roster.members[uid] = { scope, joinedAt };
    } else if (event.type === 'GroupMembersAdded') {
      const { members, addedAt } = event.data as { members: MemberRequest[]; addedAt: number };
      for (const member of members) roster.members[member.uid] = { scope: member.scope, joinedAt: addedAt };
    } else if (event.type === 'GroupMemberBanned') {
      const { uid, bannedAt } = event.data as { uid: string; bannedAt: number };
      delete roster.members[uid];
      roster.banned[uid] = bannedAt;
    }
  }
  return roster;
}

/** Use cases of a group's members and bans: join, add, list, change scope, kick, ban, unban. */
export class MembersApp {
  constructor(
    private readonly deps: GroupsDeps,
    private readonly streams: GroupStreams,
  ) {}

  async addMembers(context: RequestContext, guid: string, lists: MemberLists, password?: string): Promise<AddMembersResult> {
    const { appId } = context.actor;
    const by = await this.streams.actingUser(context.actor);
    const members = memberRequests(lists);
    const requested = [...members.map((m) => m.uid), ...lists.usersToBan];
    // A join names only the acting user, whom actingUser has just found: no second read.
    const joining = by !== undefined && requested.length === 1 && requested[0] === by;
    const known = joining ? new Set([by]) : await this.streams.existingUsers(appId, requested);

    let passwordCheck: { verifiedHash?: string } | undefined;
    if (password !== undefined && by !== undefined && requested.length === 1 && requested[0] === by) {
      const state = await this.streams.loadGroup(appId, guid);
      passwordCheck = (await passwordMatches(password, state.passwordHash)) && state.passwordHash ? { verifiedHash: state.passwordHash } : {};
    }
    const now = this.streams.now();
    const result = await this.streams.execute(
      context,
      guid,
      {
        type: 'AddMembers',
        members,
        usersToBan: lists.usersToBan,
        knownUsers: [...known],
        ...(passwordCheck ? { password: passwordCheck } : {}),
        ...(by !== undefined ? { by } : {}),
        now: epochSeconds(now),
      },
      now,
    );

    const succeeded = new Set<string>();
    for (const event of result.events) {
      const data = event.data as { uid?: string; members?: MemberRequest[] };
      if (data.uid !== undefined) succeeded.add(data.uid);
      for (const member of data.members ?? []) succeeded.add(member.uid);
    }
    // Explained on the roster after the command: from its own events when every uid succeeded (a join,
    // the common case: no reads), else as the read models now show it (a refused uid did not change).
    const roster = requested.every((uid) => succeeded.has(uid))
      ? rosterFromEvents(result.events)
      : await this.deps.readModels.rosterAt(appId, guid, [...(by !== undefined ? [by] : []), ...requested], result.version);
    const state = viewOf(result.state, roster);
    const actorRank = by === undefined ? Number.POSITIVE_INFINITY : rankOf(state, by);
    const outcome = (uid: string, kind: 'add' | 'ban'): MemberResult => {
      if (succeeded.has(uid)) {
        const member = state.members[uid];
        return kind === 'add' && member ? { success: true, data: { guid, uid, scope: member.scope, joinedAt: member.joinedAt } } : { success: true };
      }
      const refusal =
        memberRefusal(state, uid, kind, known, actorRank) ??
        new ApiError(kind === 'add' ? 'ERR_ALREADY_JOINED' : 'ERR_ALREADY_BANNED', `Nothing changed for ${uid}.`);
      return { success: false, error: { code: refusal.code, message: refusal.message } };
    };

    const response: AddMembersResult = {};
    for (const [list] of memberListScopes) {
      if (lists[list].length > 0) response[list] = Object.fromEntries(lists[list].map((uid) => [uid, outcome(uid, 'add')]));
    }
    if (lists.usersToBan.length > 0) response.usersToBan = Object.fromEntries(lists.usersToBan.map((uid) => [uid, outcome(uid, 'ban')]));
    return response;
  }

  async listMembers(
    context: RequestContext,
    guid: string,
    scopes: GroupScope[] | undefined,
    status: 'available' | 'offline' | undefined,
    cursor: ListCursor,
    perPage: number,
  ) {
    const { appId } = context.actor;
    await this.streams.existingGroup(appId, guid);
    // No presence is tracked yet: every user is offline, so nobody is "available".
    const result =
      status === 'available' ? { total: 0, items: [], more: false, last: undefined } : await this.deps.readModels.listMembers(appId, guid, scopes, cursor.position(perPage), perPage);
    const users = await this.deps.users.findUsers(appId, result.items.map((m) => m.uid));
    const data: MemberResource[] = result.items.map((member) => renderMember(member, users.get(member.uid)));
    const newest = result.items.reduce((max, member) => Math.max(max, member.updatedAt), 0);
    return {
      data,
      meta: { pagination: pagination(result.total, data.length, perPage, cursor.page), cursor: { next: cursor.next(result.last, result.more) } },
      cursor: { updatedAt: newest, affix: 'append' },
    };
  }

  async changeMemberScope(context: RequestContext, guid: string, uid: string, scope: GroupScope) {
    const by = await this.streams.actingUser(context.actor);
    const now = this.streams.now();
    const result = await this.streams.execute(context, guid, { type: 'ChangeMemberScope', uid, scope, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    const member = (await this.deps.readModels.rosterAt(context.actor.appId, guid, [uid], result.version)).members[uid];
    return { guid, uid, scope, joinedAt: member?.joinedAt ?? epochSeconds(now) };
  }

  async kickMember(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const by = await this.streams.actingUser(context.actor);
    const now = this.streams.now();
    await this.streams.execute(context, guid, { type: 'KickMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return by === uid
      ? { success: true, message: `The member with uid ${uid} has left the Group with guid ${guid}.` }
      : { success: true, message: `The member with uid ${uid} has been kicked from the Group with guid ${guid}.` };
  }

  async banUser(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const { appId } = context.actor;
    const by = await this.streams.actingUser(context.actor);
    const known = await this.streams.existingUsers(appId, [uid]);
    if (!known.has(uid)) {
      await this.streams.existingGroup(appId, guid);
      throw uidNotFound(uid);
    }
    const now = this.streams.now();
    await this.streams.execute(context, guid, { type: 'BanMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `The user with uid ${uid} has been banned from the Group with guid ${guid}.` };
  }

  async unbanUser(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const by = await this.streams.actingUser(context.actor);
    const now = this.streams.now();
    await this.streams.execute(context, guid, { type: 'UnbanMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `The user with uid ${uid} has been unbanned from the Group with guid ${guid}.` };
  }

  async listBannedUsers(context: RequestContext, guid: string, cursor: ListCursor, perPage: number) {
    const { appId } = context.actor;
    await this.streams.existingGroup(appId, guid);
    const result = await this.deps.readModels.listBans(appId, guid, cursor.position(perPage), perPage);
    const users = await this.deps.users.findUsers(appId, result.items.map((ban) => ban.uid));
    const data: BannedUserResource[] = result.items.map((ban) => renderBannedUser(ban, users.get(ban.uid)));
    return { data, meta: listMeta(result.total, data.length, perPage, cursor, cursor.next(result.last, result.more)) };
  }
}
