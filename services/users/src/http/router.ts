import { ApiError, isUid, normalizeUid, roleAccessBatchRequestSchema } from '@chat/contracts';
import { ListCursor, actorOf, importRecords, inCallerOrder, parseQuery, parseWith, requestIdOf, validateRecords } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import type { RequestContext, RoleAccessBatch } from '@chat/contracts';
import type { RelationsApp } from '../app/relations/relations.js';
import type { RolesApp } from '../app/roles/roles.js';
import type { UserImport } from '../app/users/userImport.js';
import { tokenReference } from '../app/users/users.js';
import type { UsersApp } from '../app/users/users.js';
import type { ProfileChanges } from '../domain/users/user.js';
import {
  addFriendsSchema,
  allowFeaturesSchema,
  blockedUidsSchema,
  createAuthTokenSchema,
  createRoleSchema,
  createUserSchema,
  importUserSchema,
  deactivateUsersSchema,
  deleteUserSchema,
  listFriendsSchema,
  listUsersSchema,
  pagingSchema,
  reactivateUsersSchema,
  removeFriendsSchema,
  restrictFeaturesSchema,
  roleIdSchema,
  setPermissionsSchema,
  updateAuthTokenSchema,
  updateRoleSchema,
  updateUserSchema,
} from './schemas.js';

export interface UsersApis {
  users: UsersApp;
  relations: RelationsApp;
  roles: RolesApp;
  userImport: UserImport;
}

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? '');
}

/** A path uid that cannot be valid cannot exist either: answer as for an unknown user. */
function pathUid(req: Request): string {
  const raw = param(req, 'uid');
  const uid = normalizeUid(raw);
  if (!isUid(uid)) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${raw} does not exist.`);
  return uid;
}

function pathRole(req: Request): string {
  const raw = param(req, 'role');
  const parsed = roleIdSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError('ERR_ROLE_NOT_FOUND', `The role ${raw} does not exist.`);
  return parsed.data;
}

/** Bodies are optional on DELETE and on some POSTs: a missing body reads as `{}`. */
function optionalBody(req: Request): unknown {
  return req.body ?? {};
}

function profileChanges(body: ReturnType<typeof updateUserSchema.parse>): ProfileChanges {
  const { unset, ...fields } = body;
  void unset;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** `POST /data_import/users`: per-record answers; a record keyed by another uid than its own is refused. */
function importRoutes(router: Router, { userImport }: UsersApis): void {
  router.post('/v3/data_import/users', async (req, res) => {
    const context = contextOf(req);
    const entries = importRecords(req.body, 'users', 'ERR_IMPORT_INVALID_USER_FORMAT');
    const schema = importUserSchema(Math.floor(Date.now() / 1000));
    const { valid, refused } = validateRecords(entries, (key, record) => {
      const user = parseWith(schema, record);
      if (normalizeUid(key) !== user.uid) throw new ApiError('ERR_BAD_REQUEST', `uid: must equal the record's key (${key}).`);
      return user;
    });
    res.json({ data: inCallerOrder(entries, refused, await userImport.importAll(context, valid)) });
  });
}

function usersRoutes(router: Router, { users }: UsersApis): void {
  router.post('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { withAuthToken, ...profile } = parseWith(createUserSchema, req.body ?? null);
    res.json({ data: await users.createUser(context, profile, withAuthToken) });
  });
  router.get('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { cursor, page, perPage, ...query } = parseQuery(listUsersSchema, req.query);
    const roles = query.roles ?? (query.role !== undefined ? [query.role] : undefined);
    const { searchKey, searchIn, status, tags, onlyDeactivated, withDeactivated } = query;
    const selecting = { searchKey, searchIn, status, roles, tags, onlyDeactivated, withDeactivated };
    const position = new ListCursor('list-users', selecting, cursor, page);
    res.json(await users.listUsers(context, { ...query, ...(roles ? { roles } : {}) }, position, perPage));
  });
  router.delete('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { uidsToDeactivate } = parseWith(deactivateUsersSchema, req.body ?? null);
    const result = await users.setActivation(context, uidsToDeactivate, false);
    res.json({ data: { deactivatedUids: result.uids } });
  });
  router.put('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { uidsToActivate } = parseWith(reactivateUsersSchema, req.body ?? null);
    const result = await users.setActivation(context, uidsToActivate, true);
    res.json({ data: { nonDeactivatedUids: result.uids } });
  });
  router.get('/v3/users/:uid', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await users.getUser(context, pathUid(req)) });
  });
  router.put('/v3/users/:uid', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const body = parseWith(updateUserSchema, req.body ?? null);
    res.json({ data: await users.updateUser(context, uid, profileChanges(body), body.unset) });
  });
  router.delete('/v3/users/:uid', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { permanent } = parseWith(deleteUserSchema, optionalBody(req));
    res.json({ data: await users.deleteUser(context, uid, permanent) });
  });
}

function tokenRoutes(router: Router, { users }: UsersApis): void {
  router.post('/v3/users/:uid/auth_tokens', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { platform, deviceId } = parseWith(createAuthTokenSchema, optionalBody(req));
    res.json({
      data: await users.createAuthToken(context, uid, { ...(platform ? { platform } : {}), ...(deviceId ? { deviceId } : {}) }),
    });
  });
  router.get('/v3/users/:uid/auth_tokens', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { page, perPage, cursor } = parseQuery(pagingSchema, req.query);
    res.json(await users.listAuthTokens(context, uid, new ListCursor('list-authtokens', { uid }, cursor, page), perPage));
  });
  router.delete('/v3/users/:uid/auth_tokens', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await users.flushAuthTokens(context, pathUid(req)) });
  });
  router.get('/v3/users/:uid/auth_tokens/:authToken', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await users.getAuthToken(context, pathUid(req), tokenReference(param(req, 'authToken'))) });
  });
  router.put('/v3/users/:uid/auth_tokens/:authToken', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const body = parseWith(updateAuthTokenSchema, req.body ?? null);
    const details = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    res.json({ data: await users.updateAuthToken(context, uid, tokenReference(param(req, 'authToken')), details) });
  });
  router.delete('/v3/users/:uid/auth_tokens/:authToken', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await users.deleteAuthToken(context, pathUid(req), tokenReference(param(req, 'authToken'))) });
  });
  // Not in the gateway's catalogue: the gateway's look-up of an acting user's RBAC rules.
  router.get('/internal/apps/:appId/users/:uid/access', async (req, res) => {
    const access = await users.roleAccess(param(req, 'appId'), normalizeUid(param(req, 'uid')));
    if (!access) throw new ApiError('ERR_UID_NOT_FOUND', 'No active user has that uid.');
    res.json(access);
  });
  // Not in the gateway's catalogue: the gateway's batched refresh of many acting users' rules (ADR 0104).
  router.post('/internal/apps/:appId/access', async (req, res) => {
    const { uids } = parseWith(roleAccessBatchRequestSchema, req.body ?? null);
    const access: RoleAccessBatch['access'] = await users.roleAccessOf(param(req, 'appId'), uids.map(normalizeUid));
    res.json({ access });
  });
  // Not in the gateway's catalogue: realtime's look-up of a typing notice's receiver (ADR 0101).
  router.get('/internal/apps/:appId/users/:uid/exists', async (req, res) => {
    const existence = await users.userExists(param(req, 'appId'), normalizeUid(param(req, 'uid')));
    if (!existence) throw new ApiError('ERR_UID_NOT_FOUND', 'No user of the app has that uid.');
    res.json(existence);
  });
  // Not in the gateway's catalogue: the gateway's look-up of a client's auth token, by its SHA-256.
  router.get('/internal/apps/:appId/authtokens/:tokenHash', async (req, res) => {
    const owner = await users.authTokenOwner(param(req, 'appId'), param(req, 'tokenHash'));
    if (!owner) throw new ApiError('ERR_AUTH_TOKEN_NOT_FOUND', 'No live auth token of an active user has that hash in this app.');
    res.json(owner);
  });
}

function relationRoutes(router: Router, { relations }: UsersApis): void {
  router.get('/v3/users/:uid/friends', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { page, perPage, searchKey, cursor } = parseQuery(listFriendsSchema, req.query);
    res.json(await relations.listFriends(context, uid, new ListCursor('list-all-friends', { uid, searchKey }, cursor, page), perPage, searchKey));
  });
  router.post('/v3/users/:uid/friends', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { accepted } = parseWith(addFriendsSchema, req.body ?? null);
    res.json({ data: await relations.addFriends(context, uid, accepted) });
  });
  router.delete('/v3/users/:uid/friends', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { friends } = parseWith(removeFriendsSchema, req.body ?? null);
    res.json({ data: await relations.removeFriends(context, uid, friends) });
  });
  router.get('/v3/users/:uid/blockedusers', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { page, perPage, cursor } = parseQuery(pagingSchema, req.query);
    res.json(await relations.listBlocked(context, uid, new ListCursor('list-blocked-users', { uid }, cursor, page), perPage));
  });
  router.post('/v3/users/:uid/blockedusers', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { blockedUids } = parseWith(blockedUidsSchema, req.body ?? null);
    res.json({ data: await relations.block(context, uid, blockedUids) });
  });
  router.delete('/v3/users/:uid/blockedusers', async (req, res) => {
    const context = contextOf(req);
    const uid = pathUid(req);
    const { blockedUids } = parseWith(blockedUidsSchema, req.body ?? null);
    res.json({ data: await relations.unblock(context, uid, blockedUids) });
  });
}

function roleRoutes(router: Router, { roles }: UsersApis): void {
  router.get('/v3/roles', async (req, res) => {
    const context = contextOf(req);
    const { page, perPage, cursor } = parseQuery(pagingSchema, req.query);
    res.json(await roles.list(context, new ListCursor('list-roles', {}, cursor, page), perPage));
  });
  router.post('/v3/roles', async (req, res) => {
    const context = contextOf(req);
    const { description, metadata, settings, ...role } = parseWith(createRoleSchema, req.body ?? null);
    res.json({
      data: await roles.create(context, {
        ...role,
        ...(description !== undefined ? { description } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        ...(settings !== undefined ? { settings } : {}),
      }),
    });
  });
  router.get('/v3/roles/:role', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await roles.get(context, pathRole(req)) });
  });
  router.put('/v3/roles/:role', async (req, res) => {
    const context = contextOf(req);
    const role = pathRole(req);
    const { unset, ...fields } = parseWith(updateRoleSchema, req.body ?? null);
    const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    res.json({ data: await roles.update(context, role, changes, unset) });
  });
  router.delete('/v3/roles/:role', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await roles.delete(context, pathRole(req)) });
  });
  router.get('/v3/roles/:role/permissions', async (req, res) => {
    const context = contextOf(req);
    res.json(await roles.listPermissions(context, pathRole(req)));
  });
  router.put('/v3/roles/:role/permissions', async (req, res) => {
    const context = contextOf(req);
    const role = pathRole(req);
    const { permissions } = parseWith(setPermissionsSchema, req.body ?? null);
    res.json({ data: await roles.setPermissions(context, role, permissions) });
  });
  router.delete('/v3/roles/:role/permissions/:permission', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await roles.unsetPermission(context, pathRole(req), param(req, 'permission')) });
  });
  router.get('/v3/roles/:role/restrictedfeatures', async (req, res) => {
    const context = contextOf(req);
    res.json(await roles.listRestricted(context, pathRole(req)));
  });
  router.post('/v3/roles/:role/restrictedfeatures', async (req, res) => {
    const context = contextOf(req);
    const role = pathRole(req);
    const { featuresToRestrict } = parseWith(restrictFeaturesSchema, req.body ?? null);
    res.json({ data: await roles.restrict(context, role, featuresToRestrict) });
  });
  router.delete('/v3/roles/:role/restrictedfeatures', async (req, res) => {
    const context = contextOf(req);
    const role = pathRole(req);
    const body = parseWith(allowFeaturesSchema, req.body ?? null);
    res.json({ data: await roles.allow(context, role, body.allowAll === true ? 'all' : (body.featuresToAllow ?? [])) });
  });
}

export function usersRouter(apis: UsersApis): Router {
  const router = Router();
  usersRoutes(router, apis);
  importRoutes(router, apis);
  tokenRoutes(router, apis);
  relationRoutes(router, apis);
  roleRoutes(router, apis);
  return router;
}
