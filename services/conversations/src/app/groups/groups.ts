import { ApiError, epochSeconds, isUid } from '@chat/contracts';
import type { Actor, GroupProfile, GroupScope, GroupScopePermissionId, GroupType, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { GroupQuery, GroupReadModels } from '../../adapters/groups/groupsReadModels.js';
import type { PeerUserDoc } from '../../domain/conversationView.js';
import { groupDecider, groupNotFound, groupStream, memberRefusal, rankOf, viewOf } from '../../domain/groups/group.js';
import type { GroupCommand, GroupEvent, GroupState, MemberRequest, PermissionValue, Roster } from '../../domain/groups/group.js';
import { renderBannedUser, renderGroup, renderMember } from '../../domain/groups/groupsView.js';
import type { BannedUserResource, GroupResource, MemberResource } from '../../domain/groups/groupsView.js';
import { effectivePermissions, listScopePermissions } from '../../domain/groups/scopePermissions.js';
import type { ScopePermissionResource } from '../../domain/groups/scopePermissions.js';
import { hashGroupPassword, passwordMatches } from './groupsPassword.js';
import { listMeta, pagination } from '@chat/http';
import type { ListCursor } from '@chat/http';

/** Who exists: the service's own projection of users (read only; the users service owns them). */
export interface UserDirectory {
  findUser(appId: string, uid: string): Promise<PeerUserDoc | null>;
  findUsers(appId: string, uids: readonly string[]): Promise<Map<string, PeerUserDoc>>;
}

export interface GroupsDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  readModels: GroupReadModels;
  users: UserDirectory;
  clock?: () => Date;
}

export interface MemberLists {
  admins: string[];
  moderators: string[];
  participants: string[];
  usersToBan: string[];
}

export interface NewGroup {
  guid: string;
  name: string;
  type: GroupType;
  password?: string;
  icon?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  owner?: string;
  tags: string[];
  members: MemberLists;
}

export interface GroupChanges {
  name?: string;
  type?: GroupType;
  password?: string;
  icon?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  owner?: string;
  tags?: string[];
  unset: Array<'icon' | 'description' | 'metadata'>;
}

export interface GroupListFilters {
  query: Omit<GroupQuery, 'guidsIn' | 'guidsNotIn' | 'privateVisibleTo'>;
  hasJoined?: boolean;
  withTags: boolean;
}


export interface Outcome {
  success: boolean;
  message: string;
}

export type MemberResult =
  | { success: true; data?: { guid: string; uid: string; scope: GroupScope; joinedAt: number } }
  | { success: false; error: { code: string; message: string } };

export type AddMembersResult = Partial<Record<keyof MemberLists, Record<string, MemberResult>>>;


function uidNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

const memberListScopes: Array<[keyof MemberLists, GroupScope]> = [
  ['admins', 'admin'],
  ['moderators', 'moderator'],
  ['participants', 'participant'],
];

function memberRequests(lists: MemberLists): MemberRequest[] {
  return memberListScopes.flatMap(([list, scope]) => lists[list].map((uid) => ({ uid, scope })));
}

/** The users whose membership or ban a command's decision reads. */
function involvedUids(command: GroupCommand): string[] {
  const by = 'by' in command && command.by !== undefined ? [command.by] : [];
  switch (command.type) {
    case 'CreateGroup':
    case 'ImportGroup':
    case 'SetScopePermissions':
    case 'UnsetScopePermission':
      return [];
    case 'UpdateGroup':
      return [...by, ...(command.changes.owner !== undefined ? [command.changes.owner] : [])];
    case 'DeleteGroup':
      return by;
    case 'AddMembers':
      return [...by, ...command.members.map((m) => m.uid), ...command.usersToBan];
    case 'ImportMembers':
      return command.members.map((m) => m.uid);
    case 'KickMember':
    case 'ChangeMemberScope':
    case 'BanMember':
    case 'UnbanMember':
      return [...by, command.uid];
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
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

/** Use cases of groups, members, bans and scope permissions: gather facts → command → answer. */
export class GroupsApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: GroupsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Runs a command on the group's stream; its events reach the read models before it answers. The
   * command's roster (the membership and bans of the users it involves) is read on every attempt,
   * as of the version the attempt decides on. Also the data import's way onto a group stream.
   */
  execute(context: RequestContext, guid: string, command: GroupCommand, now: Date) {
    const { appId } = context.actor;
    const involved = involvedUids(command);
    return this.deps.runner.run({
      decider: groupDecider(guid),
      streamId: groupStream(appId, guid),
      command: async (state: GroupState): Promise<GroupCommand> =>
        involved.length === 0 ? command : { ...command, roster: await this.deps.readModels.rosterAt(appId, guid, involved, state.version) },
      metadata: commandMetadata(context, now),
    });
  }

  /** The group's current state straight from its stream (the snapshot of its last commit). */
  async loadGroup(appId: string, guid: string): Promise<GroupState> {
    const { state } = await this.deps.runner.load<GroupState, GroupEvent>(groupDecider(guid), groupStream(appId, guid));
    return state;
  }

  /** Which of these uids exist, waiting briefly for users created a moment ago to reach this service. */
  private async existingUsers(appId: string, uids: readonly string[]): Promise<Set<string>> {
    const wanted = [...new Set(uids)].filter(isUid);
    if (wanted.length === 0) return new Set();
    if (wanted.length === 1) {
      // One user (the acting one, mostly): a read by id, the cheapest query there is.
      const uid: string = wanted[0] ?? '';
      const user = await readWithPatience(() => this.deps.users.findUser(appId, uid));
      return new Set(user ? [uid] : []);
    }
    let last = new Map<string, PeerUserDoc>();
    await readWithPatience(async () => {
      last = await this.deps.users.findUsers(appId, wanted);
      return last.size === wanted.length ? last : null;
    });
    return new Set(last.keys());
  }

  /** The acting user (onBehalfOf), who must exist; undefined when the app acts by itself. */
  private async actingUser(actor: Actor): Promise<string | undefined> {
    if (actor.uid === undefined) return undefined;
    const found = await this.existingUsers(actor.appId, [actor.uid]);
    if (!found.has(actor.uid)) throw uidNotFound(actor.uid);
    return actor.uid;
  }

  private async view(appId: string, guid: string, by: string | undefined): Promise<GroupResource> {
    const [doc, membership] = await Promise.all([
      this.deps.readModels.findGroup(appId, guid),
      by !== undefined ? this.deps.readModels.findMember(appId, guid, by) : Promise.resolve(null),
    ]);
    if (!doc) throw groupNotFound(guid);
    return renderGroup(doc, { ...(by !== undefined ? { uid: by } : {}), membership });
  }

  private async existingGroup(appId: string, guid: string) {
    const doc = await this.deps.readModels.findGroup(appId, guid);
    if (!doc) throw groupNotFound(guid);
    return doc;
  }

  async createGroup(context: RequestContext, input: NewGroup): Promise<GroupResource> {
    const { appId } = context.actor;
    const by = await this.actingUser(context.actor);
    const owner = input.owner ?? by ?? '';
    const members = memberRequests(input.members);
    const everyone = [...(owner ? [owner] : []), ...members.map((m) => m.uid), ...input.members.usersToBan];
    const known = await this.existingUsers(appId, everyone);
    const unknown = everyone.find((uid) => !known.has(uid));
    if (unknown !== undefined) throw uidNotFound(unknown);

    const now = this.clock();
    const profile: GroupProfile = {
      guid: input.guid,
      name: input.name,
      type: input.type,
      owner,
      ...(input.icon !== undefined ? { icon: input.icon } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      tags: input.tags,
    };
    const passwordHash = input.type === 'password' && input.password !== undefined ? await hashGroupPassword(input.password) : undefined;
    await this.execute(
      context,
      input.guid,
      {
        type: 'CreateGroup',
        profile,
        ...(passwordHash !== undefined ? { passwordHash } : {}),
        members,
        usersToBan: input.members.usersToBan,
        ...(by !== undefined ? { by } : {}),
        now: epochSeconds(now),
      },
      now,
    );
    return this.view(appId, input.guid, by);
  }

  async getGroup(context: RequestContext, guid: string): Promise<GroupResource> {
    // The hottest read: the acting user's check and the group's documents are read at the same time.
    const [by, group] = await Promise.all([this.actingUser(context.actor), this.view(context.actor.appId, guid, context.actor.uid)]);
    if (by !== undefined && group.type === 'private' && !group.hasJoined) {
      throw new ApiError('ERR_GROUP_NOT_JOINED', `The group ${guid} is private and the user ${by} is not a member of it.`);
    }
    return group;
  }

  async listGroups(context: RequestContext, filters: GroupListFilters, cursor: ListCursor, perPage: number) {
    const { appId } = context.actor;
    const by = await this.actingUser(context.actor);
    const query: GroupQuery = { ...filters.query };
    let memberships = new Map<string, Awaited<ReturnType<GroupReadModels['findMember']>>>();
    if (by !== undefined) {
      memberships = await this.deps.readModels.membershipsOf(appId, by);
      const joined = [...memberships.keys()];
      query.privateVisibleTo = joined;
      if (filters.hasJoined === true) query.guidsIn = joined;
      if (filters.hasJoined === false) query.guidsNotIn = joined;
    } else if (filters.hasJoined !== undefined) {
      throw new ApiError('ERR_EMPTY_ON_BEHALF_OF', 'hasJoined filters by the acting user: send onBehalfOf with it.');
    }
    const result = await this.deps.readModels.listGroups(appId, query, cursor.position(perPage), perPage);
    const data = result.items.map((doc) =>
      renderGroup(doc, { ...(by !== undefined ? { uid: by } : {}), membership: memberships.get(doc.guid) ?? null }, filters.withTags),
    );
    const newest = result.items.reduce((max, doc) => Math.max(max, doc.updatedAt), query.updatedAt?.value ?? 0);
    return {
      data,
      meta: {
        pagination: pagination(result.total, data.length, perPage, cursor.page),
        cursor: { updatedAt: newest, affix: query.updatedAt?.affix ?? 'append', next: cursor.next(result.last, result.more) },
      },
    };
  }

  async updateGroup(context: RequestContext, guid: string, input: GroupChanges): Promise<GroupResource> {
    const { appId } = context.actor;
    const by = await this.actingUser(context.actor);
    if (input.owner !== undefined) {
      const known = await this.existingUsers(appId, [input.owner]);
      if (!known.has(input.owner)) throw uidNotFound(input.owner);
    }
    const now = this.clock();
    const { password, unset, ...rest } = input;
    const changes = { ...rest, ...(password !== undefined ? { passwordHash: await hashGroupPassword(password) } : {}) };
    await this.execute(context, guid, { type: 'UpdateGroup', changes, removed: unset, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return this.view(appId, guid, by);
  }

  async deleteGroup(context: RequestContext, guid: string): Promise<Outcome> {
    const by = await this.actingUser(context.actor);
    const now = this.clock();
    await this.execute(context, guid, { type: 'DeleteGroup', ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `Group with guid ${guid} has been deleted successfully.` };
  }

  async addMembers(context: RequestContext, guid: string, lists: MemberLists, password?: string): Promise<AddMembersResult> {
    const { appId } = context.actor;
    const by = await this.actingUser(context.actor);
    const members = memberRequests(lists);
    const requested = [...members.map((m) => m.uid), ...lists.usersToBan];
    // A join names only the acting user, whom actingUser has just found: no second read.
    const joining = by !== undefined && requested.length === 1 && requested[0] === by;
    const known = joining ? new Set([by]) : await this.existingUsers(appId, requested);

    let passwordCheck: { verifiedHash?: string } | undefined;
    if (password !== undefined && by !== undefined && requested.length === 1 && requested[0] === by) {
      const state = await this.loadGroup(appId, guid);
      passwordCheck = (await passwordMatches(password, state.passwordHash)) && state.passwordHash ? { verifiedHash: state.passwordHash } : {};
    }
    const now = this.clock();
    const result = await this.execute(
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
    await this.existingGroup(appId, guid);
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
    const by = await this.actingUser(context.actor);
    const now = this.clock();
    const result = await this.execute(context, guid, { type: 'ChangeMemberScope', uid, scope, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    const member = (await this.deps.readModels.rosterAt(context.actor.appId, guid, [uid], result.version)).members[uid];
    return { guid, uid, scope, joinedAt: member?.joinedAt ?? epochSeconds(now) };
  }

  async kickMember(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const by = await this.actingUser(context.actor);
    const now = this.clock();
    await this.execute(context, guid, { type: 'KickMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return by === uid
      ? { success: true, message: `The member with uid ${uid} has left the Group with guid ${guid}.` }
      : { success: true, message: `The member with uid ${uid} has been kicked from the Group with guid ${guid}.` };
  }

  async banUser(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const { appId } = context.actor;
    const by = await this.actingUser(context.actor);
    const known = await this.existingUsers(appId, [uid]);
    if (!known.has(uid)) {
      await this.existingGroup(appId, guid);
      throw uidNotFound(uid);
    }
    const now = this.clock();
    await this.execute(context, guid, { type: 'BanMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `The user with uid ${uid} has been banned from the Group with guid ${guid}.` };
  }

  async unbanUser(context: RequestContext, guid: string, uid: string): Promise<Outcome> {
    const by = await this.actingUser(context.actor);
    const now = this.clock();
    await this.execute(context, guid, { type: 'UnbanMember', uid, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `The user with uid ${uid} has been unbanned from the Group with guid ${guid}.` };
  }

  async listBannedUsers(context: RequestContext, guid: string, cursor: ListCursor, perPage: number) {
    const { appId } = context.actor;
    await this.existingGroup(appId, guid);
    const result = await this.deps.readModels.listBans(appId, guid, cursor.position(perPage), perPage);
    const users = await this.deps.users.findUsers(appId, result.items.map((ban) => ban.uid));
    const data: BannedUserResource[] = result.items.map((ban) => renderBannedUser(ban, users.get(ban.uid)));
    return { data, meta: listMeta(result.total, data.length, perPage, cursor, cursor.next(result.last, result.more)) };
  }

  async listScopePermissions(context: RequestContext, guid: string, scope: GroupScope) {
    const state = await this.loadGroup(context.actor.appId, guid);
    if (!state.exists) throw groupNotFound(guid);
    const data: ScopePermissionResource[] = listScopePermissions(state, scope);
    return { data, meta: { pagination: pagination(data.length, data.length, 100, 1) } };
  }

  async setScopePermissions(
    context: RequestContext,
    guid: string,
    scope: GroupScope,
    permissions: Partial<Record<GroupScopePermissionId, PermissionValue>>,
  ) {
    const now = this.clock();
    const result = await this.execute(context, guid, { type: 'SetScopePermissions', scope, permissions, now: epochSeconds(now) }, now);
    const outcomes = Object.fromEntries(
      Object.keys(permissions).map((id) => [
        id,
        { success: true, message: `Permission with id ${id} have been mapped successfully to scope ${scope} on group ${guid}.` },
      ]),
    );
    return { ...outcomes, permissions: effectivePermissions(result.state, scope) };
  }

  async unsetScopePermission(context: RequestContext, guid: string, scope: GroupScope, permission: GroupScopePermissionId) {
    const now = this.clock();
    const result = await this.execute(context, guid, { type: 'UnsetScopePermission', scope, permission, now: epochSeconds(now) }, now);
    return { permissions: effectivePermissions(result.state, scope) };
  }
}
