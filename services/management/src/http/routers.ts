import { randomUUID } from 'node:crypto';
import { ApiError, internalHeaders } from '@chat/contracts';
import { ListCursor, actorOf, listMeta, parseQuery, parseWith, requestIdOf } from '@chat/http';
import { Router } from 'express';
import type { Request, RequestHandler } from 'express';
import type { ManagementCommands } from '../app/commands.js';
import type { ManagementQueries } from '../app/queries.js';
import { apiKeyBody, appBody } from './responses.js';
import { createApiKeyBody, createAppBody, listApiKeysQuery, listAppsQuery, updateApiKeyBody } from './schemas.js';

function correlationIdOf(req: Request): string {
  const id = requestIdOf(req);
  return id === 'unknown' ? randomUUID() : id;
}

/** Management calls are authenticated by the gateway (key/secret), which marks them with this header. */
const requireManagementCaller: RequestHandler = (req, _res, next) => {
  if (req.headers[internalHeaders.management] !== '1') {
    throw new ApiError('AUTH_ERR_EMPTY_AUTH_HEADER', 'Management APIs need the key and secret headers.');
  }
  next();
};

/** CometChat Management API: `/apps`. */
export function managementRouter(commands: ManagementCommands, queries: ManagementQueries): Router {
  const router = Router();
  router.use('/apps', requireManagementCaller);

  router.post('/apps', async (req, res) => {
    const body = parseWith(createAppBody, req.body);
    const { app, issuedKeys } = await commands.createApp(body, correlationIdOf(req));
    res.json({ data: appBody(app, issuedKeys.map(({ apiKey, key }) => ({ ...key, fullKey: apiKey }))) });
  });

  router.get('/apps', async (req, res) => {
    const { searchKey, page, perPage, cursor } = parseQuery(listAppsQuery, req.query);
    const position = new ListCursor('list-apps', { searchKey }, cursor, page);
    const { items, total, more, last } = await queries.listApps(searchKey, position.position(perPage), perPage);
    res.json({ data: items.map(({ app, keys }) => appBody(app, keys)), meta: listMeta(total, items.length, perPage, position, position.next(last, more)) });
  });

  router.get('/apps/:appId', async (req, res) => {
    const { app, keys } = await queries.getApp(req.params.appId);
    res.json({ data: appBody(app, keys) });
  });

  return router;
}

/**
 * CometChat Chat API `/v3/apikeys`. `:apiKey` is the full key or its `keyId` (see keyRefFromParam);
 * keys of other apps are indistinguishable from missing ones.
 */
export function apiKeysRouter(commands: ManagementCommands, queries: ManagementQueries): Router {
  const router = Router();

  router.post('/v3/apikeys', async (req, res) => {
    const actor = actorOf(req);
    const body = parseWith(createApiKeyBody, req.body);
    const { apiKey, key } = await commands.createApiKey(actor, body, correlationIdOf(req));
    res.json({ data: apiKeyBody(key, apiKey) });
  });

  router.get('/v3/apikeys', async (req, res) => {
    const actor = actorOf(req);
    const { scope, searchKey, page, perPage, cursor } = parseQuery(listApiKeysQuery, req.query);
    const position = new ListCursor('list-apikeys', { scope, searchKey }, cursor, page);
    const { items, total, next } = await queries.listApiKeys(actor.appId, { scope, searchKey }, position, perPage);
    res.json({ data: items.map((k) => apiKeyBody(k)), meta: listMeta(total, items.length, perPage, position, next) });
  });

  router.get('/v3/apikeys/:apiKey', async (req, res) => {
    const actor = actorOf(req);
    res.json({ data: apiKeyBody(await queries.getApiKey(actor.appId, req.params.apiKey)) });
  });

  router.put('/v3/apikeys/:apiKey', async (req, res) => {
    const actor = actorOf(req);
    const changes = parseWith(updateApiKeyBody, req.body);
    const key = await commands.updateApiKey(actor, req.params.apiKey, changes, correlationIdOf(req));
    res.json({ data: apiKeyBody(key) });
  });

  router.delete('/v3/apikeys/:apiKey', async (req, res) => {
    const actor = actorOf(req);
    await commands.deleteApiKey(actor, req.params.apiKey, correlationIdOf(req));
    res.json({ data: { success: true, message: `The Api Key ${req.params.apiKey} has been deleted successfully.` } });
  });

  return router;
}

/** For the gateway only: the gateway forwards catalog routes, and `/internal` is in no catalog. */
export function internalRouter(queries: ManagementQueries): Router {
  const router = Router();

  router.get('/internal/apikeys/:keyHash', async (req, res) => {
    const identity = await queries.identityByHash(req.params.keyHash);
    if (!identity) throw new ApiError('ERR_APIKEY_NOT_FOUND', 'No live API key has this hash.');
    res.json(identity);
  });

  router.get('/internal/apps/:appId', async (req, res) => {
    const location = await queries.appLocation(req.params.appId);
    if (!location) throw new ApiError('ERR_APP_NOT_FOUND', `The app ${req.params.appId} does not exist.`);
    res.json(location);
  });

  return router;
}
