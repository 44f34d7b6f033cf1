import { ApiError, epochSeconds } from '@chat/contracts';
import type { GroupProfile, GroupScope, GroupScopePermissionId, GroupType, RequestContext } from '@chat/contracts';
import { pagination } from '@chat/http';
import type { ListCursor } from '@chat/http';
import type { GroupQuery, GroupReadModels } from '../../adapters/groups/groupsReadModels.js';
import { groupNotFound } from '../../domain/groups/groupState.js';
import type { PermissionValue } from '../../domain/groups/groupState.js';
import { renderGroup } from '../../domain/groups/groupsView.js';
import type { GroupResource } from '../../domain/groups/groupsView.js';
import { effectivePermissions, listScopePermissions } from '../../domain/groups/scopePermissions.js';
import type { ScopePermissionResource } from '../../domain/groups/scopePermissions.js';
import type { GroupStreams, GroupsDeps, Outcome } from './groupStreams.js';
import { uidNotFound } from './groupStreams.js';
import { hashGroupPassword } from './groupsPassword.js';
import { memberRequests } from './members.js';
import type { MemberLists } from './members.js';

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

/** Use cases of a group itself: create, read, list, update, delete, and its scope permissions. */
export class GroupsApp {
  constructor(
    private readonly deps: GroupsDeps,
    private readonly streams: GroupStreams,
  ) {}

  private async view(appId: string, guid: string, by: string | undefined): Promise<GroupResource> {
    const [doc, membership] = await Promise.all([
      this.deps.readModels.findGroup(appId, guid),
      by !== undefined ? this.deps.readModels.findMember(appId, guid, by) : Promise.resolve(null),
    ]);
    if (!doc) throw groupNotFound(guid);
    return renderGroup(doc, { ...(by !== undefined ? { uid: by } : {}), membership });
  }

  async createGroup(context: RequestContext, input: NewGroup): Promise<GroupResource> {
    const { appId } = context.actor;
    const by = await this.streams.actingUser(context.actor);
    const owner = input.owner ?? by ?? '';
    const members = memberRequests(input.members);
    const everyone = [...(owner ? [owner] : []), ...members.map((m) => m.uid), ...input.members.usersToBan];
    const known = await this.streams.existingUsers(appId, everyone);
    const unknown = everyone.find((uid) => !known.has(uid));
    if (unknown !== undefined) throw uidNotFound(unknown);

    const now = this.streams.now();
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
    await this.streams.execute(
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
    const [by, group] = await Promise.all([this.streams.actingUser(context.actor), this.view(context.actor.appId, guid, context.actor.uid)]);
    if (by !== undefined && group.type === 'private' && !group.hasJoined) {
      throw new ApiError('ERR_GROUP_NOT_JOINED', `The group ${guid} is private and the user ${by} is not a member of it.`);
    }
    return group;
  }

  async listGroups(context: RequestContext, filters: GroupListFilters, cursor: ListCursor, perPage: number) {
    const { appId } = context.actor;
    const by = await this.streams.actingUser(context.actor);
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
    const by = await this.streams.actingUser(context.actor);
    if (input.owner !== undefined) {
      const known = await this.streams.existingUsers(appId, [input.owner]);
      if (!known.has(input.owner)) throw uidNotFound(input.owner);
    }
    const now = this.streams.now();
    const { password, unset, ...rest } = input;
    const changes = { ...rest, ...(password !== undefined ? { passwordHash: await hashGroupPassword(password) } : {}) };
    await this.streams.execute(context, guid, { type: 'UpdateGroup', changes, removed: unset, ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return this.view(appId, guid, by);
  }

  async deleteGroup(context: RequestContext, guid: string): Promise<Outcome> {
    const by = await this.streams.actingUser(context.actor);
    const now = this.streams.now();
    await this.streams.execute(context, guid, { type: 'DeleteGroup', ...(by !== undefined ? { by } : {}), now: epochSeconds(now) }, now);
    return { success: true, message: `Group with guid ${guid} has been deleted successfully.` };
  }

  async listScopePermissions(context: RequestContext, guid: string, scope: GroupScope) {
    const state = await this.streams.loadGroup(context.actor.appId, guid);
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
    const now = this.streams.now();
    const result = await this.streams.execute(context, guid, { type: 'SetScopePermissions', scope, permissions, now: epochSeconds(now) }, now);
    const outcomes = Object.fromEntries(
      Object.keys(permissions).map((id) => [
        id,
        { success: true, message: `Permission with id ${id} have been mapped successfully to scope ${scope} on group ${guid}.` },
      ]),
    );
    return { ...outcomes, permissions: effectivePermissions(result.state, scope) };
  }

  async unsetScopePermission(context: RequestContext, guid: string, scope: GroupScope, permission: GroupScopePermissionId) {
    const now = this.streams.now();
    const result = await this.streams.execute(context, guid, { type: 'UnsetScopePermission', scope, permission, now: epochSeconds(now) }, now);
    return { permissions: effectivePermissions(result.state, scope) };
  }
}
