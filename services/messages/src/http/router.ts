import { ApiError, isUid, normalizeUid } from '@chat/contracts';
import { actingUid, actorOf, pagination, parseQuery, parseWith, requestIdOf } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import type { MessageCursor, MessageQuery } from '../adapters/readModels.js';
import type { ApiObject, MessagesApp, RequestContext } from '../app/messages.js';
import {
  deleteSchema,
  messageFiltersSchema,
  parseEditBody,
  parseSendBody,
  pathMessageId,
  pathReaction,
  threadPageSchema,
} from './schemas.js';
import type { MessageFilters } from './schemas.js';

function contextOf(req: Request): RequestContext {
  return { actor: actorOf(req), requestId: requestIdOf(req) };
}

/** A path uid that cannot be valid cannot exist either. */
function pathUid(req: Request): string {
  const raw = String(req.params['uid'] ?? '');
  const uid = normalizeUid(raw);
  if (!isUid(uid)) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${raw} does not exist.`);
  return uid;
}

function pathGuid(req: Request): string {
  const raw = String(req.params['guid'] ?? '');
  const guid = raw.toLowerCase();
  if (!isUid(guid)) throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${raw} does not exist.`);
  return guid;
}

function filtersOf(req: Request): MessageFilters {
  return parseQuery(messageFiltersSchema, req.query);
}

/** The catalogue's filters as a read-model query (`withTags`: tags are always shown). */
async function queryOf(app: MessagesApp, context: RequestContext, base: MessageQuery, f: MessageFilters): Promise<MessageQuery> {
  const categories = [...(f.categories ?? []), ...(f.category !== undefined ? [f.category] : [])];
  const types = [...(f.types ?? []), ...(f.type !== undefined ? [f.type] : [])];
  const viewer = context.actor.uid;
  return {
    ...base,
    ...(f.sender !== undefined ? { sender: f.sender } : {}),
    ...(f.receiver !== undefined ? { receiver: f.receiver } : {}),
    ...(f.receiverType !== undefined ? { receiverType: f.receiverType } : {}),
    ...(f.conversationId !== undefined && base.conversationId === undefined ? { conversationId: f.conversationId } : {}),
    ...(categories.length > 0 ? { categories } : {}),
    ...(types.length > 0 ? { types } : {}),
    ...(f.tags?.length ? { tags: f.tags } : {}),
    ...(f.hideDeleted ? { hideDeleted: true } : {}),
    ...(f.onlyDeleted ? { onlyDeleted: true } : {}),
    ...(f.hideReplies ? { hideReplies: true } : {}),
    ...(f.hasReactions ? { hasReactions: true } : {}),
    ...(f.hasMentions ? { hasMentions: true } : {}),
    ...(f.myMentionsOnly && viewer ? { mentionedUid: viewer } : {}),
    ...(f.hasAttachments ? { hasAttachments: true } : {}),
    ...(f.attachmentTypes?.length ? { attachmentTypes: f.attachmentTypes } : {}),
    ...(f.hasLinks ? { hasLinks: true } : {}),
    ...(f.searchKey ? { searchKey: f.searchKey } : {}),
    ...(f.fromTimestamp !== undefined ? { fromTimestamp: f.fromTimestamp } : {}),
    ...(f.toTimestamp !== undefined ? { toTimestamp: f.toTimestamp } : {}),
    ...(f.hideMessagesFromBlockedUsers ? { excludeSenders: await app.blockedBy(context) } : {}),
  };
}

/**
 * `id` or `sentAt` with `affix`: `append` = after it, `prepend` = before it. Without either, `append`
 * reads from the first message and `prepend` from the newest.
 */
function cursorOf(f: MessageFilters, defaultAffix: 'append' | 'prepend'): MessageCursor | null {
  const affix = f.affix ?? defaultAffix;
  const direction = affix === 'append' ? 'after' : 'before';
  if (f.id !== undefined) return { field: 'seq', direction, value: Number(f.id) };
  if (f.sentAt !== undefined) return { field: 'sentAt', direction, value: f.sentAt };
  return direction === 'before' ? { field: 'seq', direction, value: Number.MAX_SAFE_INTEGER } : null;
}

/** `meta.current` / `meta.next` (CometChat's message-list meta): `next` continues in the same direction. */
function cursorMeta(items: ApiObject[], limit: number, cursor: MessageCursor | null) {
  const backwards = cursor?.direction === 'before';
  const edge = backwards ? items[0] : items.at(-1);
  return {
    current: { limit, count: items.length },
    ...(edge ? { next: { affix: backwards ? 'prepend' : 'append', sentAt: edge['sentAt'], id: edge['id'] } } : {}),
  };
}


export function messagesRouter(app: MessagesApp): Router {
  const router = Router();

  const sendAs = async (req: Request, sender: string, parentId?: string) => {
    const input = parseSendBody(req.body ?? null);
    return app.send(contextOf(req), { ...input, sender, ...(parentId !== undefined ? { parentId } : {}) });
  };

  router.post('/v3/messages', async (req, res) => {
    res.json({ data: await sendAs(req, actingUid(actorOf(req))) });
  });

  router.post('/v3/bots/:uid/messages', async (req, res) => {
    res.json({ data: await sendAs(req, pathUid(req)) });
  });

  router.post('/v3/messages/:id/thread', async (req, res) => {
    const parentId = pathMessageId(String(req.params['id']));
    res.json({ data: await sendAs(req, actingUid(actorOf(req)), parentId) });
  });

  /** A cursor list (`limit`, `id`/`sentAt` + `affix`) within `base`, with the catalogue's filters. */
  const cursorList = async (req: Request, context: RequestContext, base: MessageQuery) => {
    const filters = filtersOf(req);
    const query = await queryOf(app, context, base, filters);
    const limit = filters.limit ?? 100;
    const cursor = cursorOf(filters, 'append');
    const items = await app.listByCursor(context, query, cursor, limit);
    return { data: items, meta: cursorMeta(items, limit, cursor) };
  };

  router.get('/v3/messages', async (req, res) => {
    const context = contextOf(req);
    const visibleTo = await app.visibilityOf(context);
    res.json(await cursorList(req, context, { appId: context.actor.appId, ...(visibleTo ? { visibleTo } : {}) }));
  });

  router.get('/v3/groups/:guid/messages', async (req, res) => {
    const context = contextOf(req);
    res.json(await cursorList(req, context, await app.groupConversationQuery(context, pathGuid(req))));
  });

  router.get('/v3/users/:uid/messages', async (req, res) => {
    const context = contextOf(req);
    actingUid(context.actor);
    const filters = filtersOf(req);
    const base = await app.userConversationQuery(context, pathUid(req));
    const query = await queryOf(app, context, base, filters);
    const perPage = filters.perPage ?? filters.limit ?? 100;
    if (filters.id !== undefined || filters.sentAt !== undefined || filters.affix !== undefined) {
      const cursor = cursorOf(filters, 'prepend');
      const [items, total] = await Promise.all([app.listByCursor(context, query, cursor, perPage), app.countMatching(query)]);
      const edge = cursor?.direction === 'before' ? items[0] : items.at(-1);
      res.json({
        data: items,
        meta: {
          pagination: pagination(total, items.length, perPage, 1),
          ...(edge ? { cursor: { id: Number(edge['id']), affix: filters.affix ?? 'prepend' } } : {}),
        },
      });
      return;
    }
    const page = filters.page ?? 1;
    const { total, items } = await app.listByPage(context, query, page, perPage);
    const last = items.at(-1);
    res.json({
      data: items,
      meta: {
        pagination: pagination(total, items.length, perPage, page),
        ...(last ? { cursor: { id: Number(last['id']), affix: 'append' } } : {}),
      },
    });
  });

  router.get('/v3/messages/:id', async (req, res) => {
    res.json({ data: await app.get(contextOf(req), pathMessageId(String(req.params['id']))) });
  });

  router.put('/v3/messages/:id', async (req, res) => {
    const id = pathMessageId(String(req.params['id']));
    const input = parseEditBody(req.body ?? null);
    res.json({ data: await app.edit(contextOf(req), id, input) });
  });

  router.delete('/v3/messages/:id', async (req, res) => {
    const id = pathMessageId(String(req.params['id']));
    const { permanent } = parseWith(deleteSchema, req.body ?? {});
    res.json({ data: await app.delete(contextOf(req), id, permanent ?? false) });
  });

  router.get('/v3/messages/:id/thread', async (req, res) => {
    const context = contextOf(req);
    const { perPage, page } = parseQuery(threadPageSchema, req.query);
    const query = await app.threadQuery(context, pathMessageId(String(req.params['id'])));
    const { items } = await app.listByPage(context, query, page, perPage);
    res.json({ data: items, meta: cursorMeta(items, perPage, null) });
  });

  const reactionList = async (req: Request, reaction?: string) => {
    const items = await app.listReactions(contextOf(req), pathMessageId(String(req.params['id'])), reaction);
    const last = items.at(-1);
    return { data: items, meta: { current: { limit: 100, count: items.length }, ...(last ? { next: { affix: 'append', id: last['id'] } } : {}) } };
  };

  router.get('/v3/messages/:id/reactions', async (req, res) => {
    res.json(await reactionList(req));
  });

  router.get('/v3/messages/:id/reactions/:reaction', async (req, res) => {
    res.json(await reactionList(req, pathReaction(String(req.params['reaction']))));
  });

  router.post('/v3/messages/:id/reactions/:reaction', async (req, res) => {
    const context = contextOf(req);
    actingUid(context.actor);
    res.json({ data: await app.changeReaction(context, pathMessageId(String(req.params['id'])), pathReaction(String(req.params['reaction'])), 'add') });
  });

  router.delete('/v3/messages/:id/reactions/:reaction', async (req, res) => {
    const context = contextOf(req);
    actingUid(context.actor);
    res.json({ data: await app.changeReaction(context, pathMessageId(String(req.params['id'])), pathReaction(String(req.params['reaction'])), 'remove') });
  });

  return router;
}
