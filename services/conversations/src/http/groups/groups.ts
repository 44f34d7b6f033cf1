import { ApiError, limitDenial, normalizeUid } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { ListCursor, actorOf, importRecords, inCallerOrder, outcomesOf, parseQuery, parseWith, requestIdOf, roleLimitsOf, validateRecords } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { GroupImport } from '../../app/groups/groupImport.js';
import type { GroupsApp } from '../../app/groups/groups.js';
import type { MembersApp } from '../../app/groups/members.js';
import { parseScopePermissions, isScopePermissionId } from '../../domain/groups/scopePermissions.js';
import {
  GUID_PATTERN,
  addMembersSchema,
  changeScopeSchema,
  createGroupSchema,
  importGroupSchema,
  importMemberSchema,
  listGroupsSchema,
  listMembersSchema,
  pagingSchema,
  scopeSchema,
  setScopePermissionsSchema,
  updateGroupSchema,
} from './groupsSchemas.js';

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

/** A path guid that cannot be valid cannot exist either: answer as for an unknown group. */
function pathGuid(req: Request): string {
  const raw = String(req.params['guid'] ?? '');
  const guid = raw.toLowerCase();
  if (!GUID_PATTERN.test(guid)) throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${raw} does not exist.`);
  return guid;
}

function pathUid(req: Request): string {
  return normalizeUid(String(req.params['uid'] ?? ''));
}

function pathScope(req: Request) {
  return parseWith(z.object({ scope: scopeSchema }), { scope: req.params['scope'] }).scope;
}

/** `POST /data_import/groups` and `/members`: per-record answers, in the caller's order. */
export function groupImportRouter(groupImport: GroupImport): Router {
  const router = Router();
  router.post('/v3/data_import/groups', async (req, res) => {
    const entries = importRecords(req.body, 'groups', 'ERR_IMPORT_INVALID_GROUP_FORMAT');
    const schema = importGroupSchema(Math.floor(Date.now() / 1000));
    const { valid, refused } = validateRecords(entries, (key, record) => {
      const group = parseWith(schema, record);
      if (key.toLowerCase() !== group.guid) throw new ApiError('ERR_BAD_REQUEST', `guid: must equal the record's key (${key}).`);
      return group;
    });
    res.json({ data: inCallerOrder(entries, refused, outcomesOf(await groupImport.importGroups(contextOf(req), valid))) });
  });
  router.post('/v3/data_import/members', async (req, res) => {
    const entries = importRecords(req.body, 'members', 'ERR_IMPORT_INVALID_MEMBER_FORMAT');
    const schema = importMemberSchema(Math.floor(Date.now() / 1000));
    const { valid, refused } = validateRecords(entries, (key, record) => {
      const member = parseWith(schema, record);
      if (key !== member.memberId) throw new ApiError('ERR_BAD_REQUEST', `memberId: must equal the record's key (${key}).`);
      return member;
    });
    res.json({ data: inCallerOrder(entries, refused, outcomesOf(await groupImport.importMembers(contextOf(req), valid))) });
  });
  return router;
}

export function groupsRouter(app: GroupsApp, members: MembersApp): Router {
  const router = Router();

  router.post('/v3/groups', async (req, res) => {
    const context = contextOf(req);
    const body = parseWith(createGroupSchema, req.body ?? null);
    if (body.type === 'password' && body.password === undefined) {
      throw new ApiError('ERR_EMPTY_GROUP_PASS', 'password: a password group needs a password.', {
        fields: [{ field: 'password', problem: 'required when type is password' }],
      });
    }
    // The acting user's role may allow some group types only (README, access rules).
    const limits = roleLimitsOf(req);
    const denial = limits ? limitDenial('create-group', limits, { groupType: body.type }) : null;
    if (denial) throw new ApiError('ERR_PERMISSION_DENIED', denial);
    res.json({ data: await app.createGroup(context, body) });
  });

  router.get('/v3/groups', async (req, res) => {
    const context = contextOf(req);
    const query = parseQuery(listGroupsSchema, req.query);
    const types = query.types ?? (query.type ? [query.type] : undefined);
    const filters = {
      query: {
        ...(query.searchKey !== undefined ? { search: { key: query.searchKey, fields: query.searchIn ?? ['name', 'guid'] } } : {}),
        ...(types ? { types } : {}),
        ...(query.tags ? { tags: query.tags } : {}),
        ...(query.updatedAt !== undefined ? { updatedAt: { value: query.updatedAt, affix: query.affix ?? 'append' } } : {}),
        sortBy: query.sortBy,
        sortOrder: query.sortOrder,
      },
      ...(query.hasJoined !== undefined ? { hasJoined: query.hasJoined } : {}),
    };
    // The acting user is part of the list's scope: which private groups show depends on them.
    const cursor = new ListCursor('list-groups', { ...filters, by: context.actor.uid }, query.cursor, query.page);
    res.json(await app.listGroups(context, { ...filters, withTags: query.withTags }, cursor, query.perPage));
  });

  router.get('/v3/groups/:guid', async (req, res) => {
    res.json({ data: await app.getGroup(contextOf(req), pathGuid(req)) });
  });

  router.put('/v3/groups/:guid', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const body = parseWith(updateGroupSchema, req.body ?? {});
    res.json({ data: await app.updateGroup(context, guid, body) });
  });

  router.delete('/v3/groups/:guid', async (req, res) => {
    res.json({ data: await app.deleteGroup(contextOf(req), pathGuid(req)) });
  });

  router.get('/v3/groups/:guid/members', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const query = parseQuery(listMembersSchema, req.query);
    const cursor = new ListCursor('list-group-members', { guid, scopes: query.scopes, status: query.status }, query.cursor, query.page);
    res.json(await members.listMembers(context, guid, query.scopes, query.status, cursor, query.perPage));
  });

  router.post('/v3/groups/:guid/members', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const body = parseWith(addMembersSchema, req.body ?? null);
    res.json({ data: await members.addMembers(context, guid, body.lists, body.password) });
  });

  router.put('/v3/groups/:guid/members/:uid', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const { scope } = parseWith(changeScopeSchema, req.body ?? {});
    res.json({ data: await members.changeMemberScope(context, guid, pathUid(req), scope) });
  });

  router.delete('/v3/groups/:guid/members/:uid', async (req, res) => {
    res.json({ data: await members.kickMember(contextOf(req), pathGuid(req), pathUid(req)) });
  });

  router.get('/v3/groups/:guid/bannedusers', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const { page, perPage, cursor } = parseQuery(pagingSchema, req.query);
    res.json(await members.listBannedUsers(context, guid, new ListCursor('list-banned-group-users', { guid }, cursor, page), perPage));
  });

  router.post('/v3/groups/:guid/bannedusers/:uid', async (req, res) => {
    res.json({ data: await members.banUser(contextOf(req), pathGuid(req), pathUid(req)) });
  });

  router.delete('/v3/groups/:guid/bannedusers/:uid', async (req, res) => {
    res.json({ data: await members.unbanUser(contextOf(req), pathGuid(req), pathUid(req)) });
  });

  router.get('/v3/groups/:guid/scopes/:scope/permissions', async (req, res) => {
    const context = contextOf(req);
    res.json(await app.listScopePermissions(context, pathGuid(req), pathScope(req)));
  });

  router.put('/v3/groups/:guid/scopes/:scope/permissions', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const scope = pathScope(req);
    const body = parseWith(setScopePermissionsSchema, req.body ?? null);
    res.json({ data: await app.setScopePermissions(context, guid, scope, parseScopePermissions(body.permissions)) });
  });

  router.delete('/v3/groups/:guid/scopes/:scope/permissions/:permission', async (req, res) => {
    const context = contextOf(req);
    const guid = pathGuid(req);
    const scope = pathScope(req);
    const permission = String(req.params['permission'] ?? '');
    if (!isScopePermissionId(permission)) {
      throw new ApiError('ERR_BAD_REQUEST', `permission: unknown permission ${permission}.`, {
        fields: [{ field: 'permission', problem: 'unknown permission' }],
      });
    }
    res.json({ data: await app.unsetScopePermission(context, guid, scope, permission) });
  });

  return router;
}
