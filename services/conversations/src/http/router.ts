import { actingUid, actorOf, parseWith, requestIdOf } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { ConversationsApp, RequestContext } from '../app/conversations.js';
import { MAX_GLOBAL_PINS } from '../domain/globalPins.js';

const pagingSchema = z.object({
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
});

const idString = z.string().trim().min(1).max(100);
const globalPinItem = z.union([
  z.strictObject({ uid: idString }),
  z.strictObject({ guid: idString }),
]);
const replaceGlobalPinsSchema = z.object({
  // Longer lists get the documented limit error from the domain, not a generic validation error.
  pinnedConversations: z.array(globalPinItem).max(MAX_GLOBAL_PINS * 20),
});

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

function param(req: Request, name: string): string {
  return String(req.params[name] ?? '');
}

export function conversationsRouter(app: ConversationsApp): Router {
  const router = Router();

  router.get('/v3/conversations/pinned', async (req, res) => {
    res.json({ data: { pinnedConversations: await app.listGlobalPins(contextOf(req)) } });
  });

  router.put('/v3/conversations/pinned', async (req, res) => {
    const context = contextOf(req);
    const body = parseWith(replaceGlobalPinsSchema, req.body ?? null);
    const targets = body.pinnedConversations.map((item) =>
      'uid' in item
        ? { conversationType: 'user' as const, conversationWith: item.uid }
        : { conversationType: 'group' as const, conversationWith: item.guid },
    );
    res.json({ data: { pinnedConversations: await app.replaceGlobalPins(context, targets) } });
  });

  router.get('/v3/conversations', async (req, res) => {
    const context = contextOf(req);
    const { page, perPage } = parseWith(pagingSchema, req.query);
    res.json(await app.listUserConversations(context, actingUid(context.actor), page, perPage));
  });

  router.get('/v3/users/:uid/conversation', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.getUserConversation(context, actingUid(context.actor), param(req, 'uid')) });
  });

  router.post('/v3/users/:uid/conversation/pin', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.pinUserConversation(context, actingUid(context.actor), param(req, 'uid')) });
  });

  router.delete('/v3/users/:uid/conversation/pin', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.unpinUserConversation(context, actingUid(context.actor), param(req, 'uid')) });
  });

  return router;
}
