import { ApiError } from '@chat/contracts';
import { ListCursor, actorOf, correlationIdOf, listMeta, parseQuery, parseWith, requireManagementCaller } from '@chat/http';
import { Router } from 'express';
import type { ManagementCommands } from '../../app/apps/commands.js';
import type { ManagementQueries } from '../../app/apps/queries.js';
import { validSettings } from '../../domain/apps/settings.js';

import { SELF_HOSTED_PLAN, apiKeyBody, appBody, eachSucceeded } from '../responses.js';
import {
  collaboratorsBody,
  createApiKeyBody,
  createAppBody,
  listApiKeysQuery,
  listAppsQuery,
  settingsBody,
  tenantBody,
  updateApiKeyBody,
  usageBody,
} from '../schemas.js';

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

  router.delete('/apps/:appId', async (req, res) => {
    const deletedAt = await commands.deleteApp(req.params.appId, correlationIdOf(req));
    // Deletion is immediate here (keys revoked, webhooks stopped); CometChat's field says when.
    res.json({ data: { success: true, scheduledToDeleteAt: deletedAt } });
  });

  router.post('/apps/:appId/usage', async (req, res) => {
    const { usePreviousBillingCycle } = parseWith(usageBody, req.body ?? {});
    await commands.requestUsage(req.params.appId, usePreviousBillingCycle ?? false, correlationIdOf(req));
    res.json({ data: { success: true, message: `Your usage request has been accepted and recorded for ${req.params.appId}.` } });
  });

  router.get('/apps/:appId/collaborators', async (req, res) => {
    const collaborators = await queries.collaborators(req.params.appId);
    res.json({
      data: collaborators.map((c) => ({ id: c.email, name: c.email.split('@')[0], email: c.email, role: c.role, createdAt: c.addedAt })),
    });
  });

  router.post('/apps/:appId/collaborators', async (req, res) => {
    const body = parseWith(collaboratorsBody, req.body);
    const change = { admins: body.admins ?? [], moderators: body.moderators ?? [], remove: body.collaboratorsToRemove ?? [] };
    await commands.changeCollaborators(req.params.appId, change, correlationIdOf(req));
    res.json({
      data: {
        collaboratorsToRemove: change.remove,
        admins: eachSucceeded(change.admins, 'Added successfully.'),
        developers: {},
        moderators: eachSucceeded(change.moderators.filter((m) => !change.admins.includes(m)), 'Added successfully.'),
      },
    });
  });

  router.get('/apps/:appId/settings', async (req, res) => {
    res.json({ data: await queries.settings(req.params.appId) });
  });

  router.post('/apps/:appId/settings', async (req, res) => {
    const settings = validSettings(parseWith(settingsBody, req.body).settings);
    await commands.setSettings(req.params.appId, settings, correlationIdOf(req));
    res.json({ data: eachSucceeded(settings.map((s) => s.key), 'Added setting(s) successfully.') });
  });

  router.delete('/apps/:appId/settings', async (req, res) => {
    await commands.resetSettings(req.params.appId, correlationIdOf(req));
    res.json({ data: { success: true, message: 'Settings were reset to their defaults.' } });
  });

  return router;
}

/** CometChat's `POST /tenants`: an owner and their first app, answered with its two keys. */
export function tenantsRouter(commands: ManagementCommands): Router {
  const router = Router();
  router.use('/tenants', requireManagementCaller);
  router.post('/tenants', async (req, res) => {
    const { appName, appRegion, ...owner } = parseWith(tenantBody, req.body);
    const { app, issuedKeys } = await commands.createApp({ name: appName, region: appRegion, tenant: owner }, correlationIdOf(req));
    const keyOf = (scope: string) => issuedKeys.find((k) => k.key.scope === scope)?.apiKey;
    res.json({
      data: {
        name: owner.name,
        email: owner.email,
        createdAt: app.createdAt,
        ...(owner.contactNumber !== undefined ? { contactNumber: owner.contactNumber } : {}),
        app: {
          name: app.name,
          appId: app.appId,
          region: app.region,
          authKey: keyOf('authOnly'),
          apiKey: keyOf('fullAccess'),
          createdAt: app.createdAt,
          plan: SELF_HOSTED_PLAN,
        },
      },
    });
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
