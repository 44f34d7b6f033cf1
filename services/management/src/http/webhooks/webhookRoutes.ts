import { webhookTriggers } from '@chat/contracts';
import type { WebhookTrigger } from '@chat/contracts';
import { ListCursor, correlationIdOf, listMeta, pagination, parseQuery, parseWith, requireManagementCaller } from '@chat/http';
import { Router } from 'express';
import type { ManagementQueries } from '../../app/apps/queries.js';
import type { WebhookCommands } from '../../app/webhooks/webhookCommands.js';

import { eachSucceeded, webhookBody } from '../responses.js';
import { createWebhookBody, listWebhooksQuery, triggersBody, updateWebhookBody } from '../schemas.js';

/** CometChat Management API: `/apps/{appId}/webhooks…`, and our secret rotation. */
export function webhooksRouter(commands: WebhookCommands, queries: ManagementQueries): Router {
  const router = Router();
  router.use('/apps/:appId/webhooks', requireManagementCaller);

  router.get('/apps/:appId/webhooks', async (req, res) => {
    const { searchKey, page, perPage, cursor } = parseQuery(listWebhooksQuery, req.query);
    const position = new ListCursor('list-webhooks', { appId: req.params.appId, searchKey }, cursor, page);
    const { items, total, next } = await queries.listWebhooks(req.params.appId, searchKey, position, perPage);
    res.json({ data: items.map(webhookBody), meta: listMeta(total, items.length, perPage, position, next) });
  });

  router.post('/apps/:appId/webhooks', async (req, res) => {
    const { id, ...input } = parseWith(createWebhookBody, req.body);
    await queries.existingApp(req.params.appId);
    const { webhook, secret } = await commands.create(req.params.appId, id, input, correlationIdOf(req));
    // The signing secret is shown once, here (and by rotation); keep it to verify deliveries.
    res.json({ data: { ...webhookBody(webhook), signingSecret: secret } });
  });

  router.get('/apps/:appId/webhooks/:webhookId', async (req, res) => {
    res.json({ data: webhookBody(await queries.getWebhook(req.params.appId, req.params.webhookId)) });
  });

  router.put('/apps/:appId/webhooks/:webhookId', async (req, res) => {
    const input = parseWith(updateWebhookBody, req.body);
    await queries.existingApp(req.params.appId);
    res.json({ data: webhookBody(await commands.update(req.params.appId, req.params.webhookId, input, correlationIdOf(req))) });
  });

  router.delete('/apps/:appId/webhooks/:webhookId', async (req, res) => {
    await queries.existingApp(req.params.appId);
    await commands.delete(req.params.appId, req.params.webhookId, correlationIdOf(req));
    res.json({ data: { success: true, message: 'Deleted Webhook successfully.' } });
  });

  router.post('/apps/:appId/webhooks/:webhookId/secret', async (req, res) => {
    await queries.existingApp(req.params.appId);
    const secret = await commands.rotateSecret(req.params.appId, req.params.webhookId, correlationIdOf(req));
    res.json({ data: { id: req.params.webhookId, signingSecret: secret } });
  });

  router.get('/apps/:appId/webhooks/:webhookId/triggers', async (req, res) => {
    const { triggers } = await queries.getWebhook(req.params.appId, req.params.webhookId);
    const data = triggers.map((id) => ({ id, description: webhookTriggers[id as WebhookTrigger] ?? '' }));
    res.json({ data, meta: { pagination: pagination(data.length, data.length, 100, 1) } });
  });

  router.post('/apps/:appId/webhooks/:webhookId/triggers', async (req, res) => {
    const { triggerIds } = parseWith(triggersBody, req.body);
    await queries.existingApp(req.params.appId);
    await commands.addTriggers(req.params.appId, req.params.webhookId, triggerIds, correlationIdOf(req));
    res.json({ data: eachSucceeded(triggerIds, 'Triggers has been added successfully.') });
  });

  router.delete('/apps/:appId/webhooks/:webhookId/triggers', async (req, res) => {
    const { triggerIds } = parseWith(triggersBody, req.body);
    await queries.existingApp(req.params.appId);
    await commands.removeTriggers(req.params.appId, req.params.webhookId, triggerIds, correlationIdOf(req));
    res.json({ data: { success: true, message: 'Removed trigger successfully.' } });
  });
  return router;
}
