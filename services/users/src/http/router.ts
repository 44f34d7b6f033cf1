import { isUid, normalizeUid, ApiError } from '@chat/contracts';
import { actorOf, parseWith, requestIdOf } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import type { RequestContext, UsersApp } from '../app/users.js';
import { createAuthTokenSchema, createUserSchema, pagingSchema } from './schemas.js';

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

/** A path uid that cannot be valid cannot exist either: answer as for an unknown user. */
function pathUid(req: Request): string {
  const raw = String(req.params['uid'] ?? '');
  const uid = normalizeUid(raw);
  if (!isUid(uid)) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${raw} does not exist.`);
  return uid;
}

export function usersRouter(app: UsersApp): Router {
  const router = Router();

  router.post('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { withAuthToken, ...profile } = parseWith(createUserSchema, req.body ?? null);
    res.json({ data: await app.createUser(context, profile, withAuthToken) });
  });

  router.get('/v3/users', async (req, res) => {
    const context = contextOf(req);
    const { page, perPage } = parseWith(pagingSchema, req.query);
    res.json(await app.listUsers(context, page, perPage));
  });

  router.get('/v3/users/:uid', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.getUser(context, pathUid(req)) });
  });

  router.post('/v3/users/:uid/auth_tokens', async (req, res) => {
    const context = contextOf(req);
    parseWith(createAuthTokenSchema, req.body);
    res.json({ data: await app.createAuthToken(context, pathUid(req)) });
  });

  return router;
}
