import { AS_OF_DESCRIPTION, normalizeUid, parseAsOf } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { ListCursor, actingUid, actorOf, awaitConsistency, cursorParameter, parseQuery, parseWith, requestIdOf, requestedPositions } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { Target } from '../../app/conversations/conversationAccess.js';
import type { ConversationsApp, ListQuery } from '../../app/conversations/conversations.js';
import type { Mark, MarksApp } from '../../app/conversations/marks.js';
import type { PinsApp } from '../../app/pins/pins.js';
import { MAX_GLOBAL_PINS } from '../../domain/pins/globalPins.js';

const queryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** `tags=a,b` (CometChat's form style), `tags=a&tags=b` or `tags[]=a`: one list of non-empty strings. */
const queryList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(100)).min(1).max(25));

export const listSchema = z.object({
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  conversationType: z.enum(['user', 'group']).optional(),
  unread: queryBoolean.optional(),
  withTags: queryBoolean.optional(),
  tags: queryList.optional(),
  withUserAndGroupTags: queryBoolean.optional(),
  userTags: queryList.optional(),
  groupTags: queryList.optional(),
  searchKey: z.string().trim().min(1).max(100).optional(),
  cursor: cursorParameter,
});

/** One conversation's read takes one parameter of ours: `asOf`, a past state (ADR 0033). */
export const conversationReadSchema = z.object({ asOf: z.string().max(8_192).describe(AS_OF_DESCRIPTION).optional() });

/** Message ids are strings in every response, so a client may send either form back. */
const messageIdSchema = z.union([
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  z.string().regex(/^[1-9][0-9]{0,15}$/, 'a positive integer').transform(Number),
]);
export const markSchema = z.object({ messageId: messageIdSchema.optional() });
export const updateSchema = z.strictObject({
  tags: z.array(z.string().trim().min(1).max(100)).max(25),
});
export const resetSchema = z.object({
  conversationWith: z.string().max(100).optional(),
  deleteMessagesPermanently: z.boolean().optional(),
});

const idString = z.string().trim().min(1).max(100);
const globalPinItem = z.union([
  z.strictObject({ uid: idString }),
  z.strictObject({ guid: idString }),
]);
export const replaceGlobalPinsSchema = z.object({
  // Longer lists get the documented limit error from the domain, not a generic validation error.
  pinnedConversations: z.array(globalPinItem).max(MAX_GLOBAL_PINS * 20),
});

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

/** Uids, guids and the conversation ids built from them are case-insensitive: one rule, lower case, on every route. */
function param(req: Request, name: string): string {
  return normalizeUid(String(req.params[name] ?? ''));
}

/** A body is optional on these operations: none, or an empty one, reads as `{}`. */
function bodyOf(req: Request): unknown {
  const body: unknown = req.body;
  return body === undefined || body === null ? {} : body;
}

export function conversationsRouter(app: ConversationsApp, marksApp: MarksApp, pins: PinsApp): Router {
  const router = Router();

  router.get('/v3/conversations/pinned', async (req, res) => {
    res.json({ data: { pinnedConversations: await pins.listGlobalPins(contextOf(req)) } });
  });

  router.put('/v3/conversations/pinned', async (req, res) => {
    const context = contextOf(req);
    const body = parseWith(replaceGlobalPinsSchema, req.body ?? null);
    const targets = body.pinnedConversations.map((item) =>
      'uid' in item
        ? { conversationType: 'user' as const, conversationWith: item.uid }
        : { conversationType: 'group' as const, conversationWith: item.guid },
    );
    res.json({ data: { pinnedConversations: await pins.replaceGlobalPins(context, targets) } });
  });

  router.get('/v3/conversations', async (req, res) => {
    const context = contextOf(req);
    const { cursor, page, ...parsed } = parseQuery(listSchema, req.query);
    const query: ListQuery = Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as unknown as ListQuery;
    const { conversationType, unread, tags, userTags, groupTags, searchKey } = query;
    const selecting = { conversationType, unread, tags, userTags, groupTags, searchKey };
    // The acting user is part of the list's scope: each user's list is another list.
    const position = new ListCursor('list-all-conversations', { ...selecting, by: context.actor.uid }, cursor, page);
    res.json(await app.listConversations(context, query, position));
  });

  router.get('/v3/conversations/:conversationId', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.getConversationById(context, actingUid(context.actor), param(req, 'conversationId')) });
  });

  router.delete('/v3/conversations/:conversationId', async (req, res) => {
    const context = contextOf(req);
    res.json({ data: await app.deleteConversationById(context, actingUid(context.actor), param(req, 'conversationId')) });
  });

  // The same operations on a one-on-one (`/users/:uid`) and a group (`/groups/:guid`) conversation.
  for (const [prefix, type, key] of [
    ['/v3/users/:uid/conversation', 'user', 'uid'],
    ['/v3/groups/:guid/conversation', 'group', 'guid'],
  ] as const) {
    const targetOf = (req: Request): Target => ({ type, id: param(req, key) });

    router.get(prefix, async (req, res) => {
      const context = contextOf(req);
      const { asOf } = parseQuery(conversationReadSchema, req.query);
      if (asOf !== undefined) {
        // A past state is folded from the log, so it waits for no read model.
        const bound = parseAsOf(asOf, context.actor.appId, Date.now());
        res.json({ data: await app.getConversationAsOf(context, actingUid(context.actor), targetOf(req), bound) });
        return;
      }
      // A read after a send on another service or replica: wait (bounded) until the send is applied here.
      const positions = requestedPositions(req);
      if (positions) await awaitConsistency(res, () => app.hasApplied(context, actingUid(context.actor), targetOf(req), positions));
      res.json({ data: await app.getConversation(context, actingUid(context.actor), targetOf(req)) });
    });

    router.put(prefix, async (req, res) => {
      const context = contextOf(req);
      const { tags } = parseWith(updateSchema, req.body ?? null);
      res.json({ data: await marksApp.updateConversation(context, actingUid(context.actor), targetOf(req), tags) });
    });

    router.delete(prefix, async (req, res) => {
      const context = contextOf(req);
      const body = parseWith(resetSchema, bodyOf(req));
      const permanently = body.deleteMessagesPermanently === true;
      res.json({ data: await marksApp.resetConversation(context, actingUid(context.actor), targetOf(req), permanently) });
    });

    const marks: Array<['post' | 'delete', string, Mark]> = [
      ['post', '/delivered', 'delivered'],
      ['post', '/read', 'read'],
      ['delete', '/read', 'unread'],
    ];
    for (const [method, suffix, mark] of marks) {
      router[method](`${prefix}${suffix}`, async (req, res) => {
        const context = contextOf(req);
        const { messageId } = parseWith(markSchema, bodyOf(req));
        res.json({ data: await marksApp.mark(context, actingUid(context.actor), targetOf(req), mark, messageId) });
      });
    }

    router.post(`${prefix}/pin`, async (req, res) => {
      const context = contextOf(req);
      res.json({ data: await pins.pin(context, actingUid(context.actor), targetOf(req)) });
    });

    router.delete(`${prefix}/pin`, async (req, res) => {
      const context = contextOf(req);
      res.json({ data: await pins.unpin(context, actingUid(context.actor), targetOf(req)) });
    });
  }

  return router;
}
