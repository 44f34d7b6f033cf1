import { ApiError, isUid, normalizeUid, parseAsOf } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { ListCursor, actingUid, actorOf, pagination, parseQuery, parseWith } from '@chat/http';
import type { MessagesAsOf } from '../app/messagesAsOf.js';
import { Router } from 'express';
import type { Request } from 'express';
import type { MessageCursor, MessageQuery } from '../adapters/messageQuery.js';
import type { MessagesApp } from '../app/messages.js';
import type { ApiObject } from '../app/conversationLog.js';
import {
  allMessagesSchema,
  conversationMessagesSchema,
  deleteSchema,
  parseEditBody,
  pathMessageId,
  pathReaction,
  threadPageSchema,
  userMessagesSchema,
} from './schemas.js';
import type { MessageFilters } from './schemas.js';
import { requestContextOf } from './requestContext.js';
import { sendAs } from './sending.js';

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

/** Filters that are about one user's view; the app acting alone has none, so they are refused, not ignored. */
const VIEWER_FILTERS = ['unread', 'undelivered', 'myMentionsOnly', 'mentionsWithBlockedInfo', 'hideMessagesFromBlockedUsers'] as const;

function viewerOf(context: RequestContext, f: MessageFilters): string | undefined {
  const viewer = context.actor.uid;
  const needing = VIEWER_FILTERS.find((name) => f[name] === true);
  if (needing !== undefined && viewer === undefined) {
    throw new ApiError('ERR_BAD_REQUEST', `${needing}: this filter is about one user's view of the messages; send onBehalfOf`, {
      fields: [{ field: needing, problem: 'needs onBehalfOf' }],
    });
  }
  return viewer;
}

/** The catalogue's filters as a read-model query (`withTags`: tags are always shown). */
async function queryOf(app: MessagesApp, context: RequestContext, base: MessageQuery, f: MessageFilters): Promise<MessageQuery> {
  const categories = [...(f.categories ?? []), ...(f.category !== undefined ? [f.category] : [])];
  const types = [...(f.types ?? []), ...(f.type !== undefined ? [f.type] : [])];
  const viewer = viewerOf(context, f);
  const unseen = f.unread ? 'read' : f.undelivered ? 'delivered' : undefined;
  const conversationId = base.conversationId ?? f.conversationId;
  return {
    ...base,
    ...(f.sender !== undefined ? { sender: f.sender } : {}),
    ...(f.receiver !== undefined ? { receiver: f.receiver } : {}),
    ...(f.receiverType !== undefined ? { receiverType: f.receiverType } : {}),
    ...(conversationId !== undefined ? { conversationId } : {}),
    ...(categories.length > 0 ? { categories } : {}),
    ...(types.length > 0 ? { types } : {}),
    ...(f.tags?.length ? { tags: f.tags } : {}),
    ...(f.hideDeleted ? { hideDeleted: true } : {}),
    ...(f.onlyDeleted ? { onlyDeleted: true } : {}),
    ...(f.hideReplies ? { hideReplies: true } : {}),
    ...(f.hasReactions ? { hasReactions: true } : {}),
    ...(f.hasMentions ? { hasMentions: true } : {}),
    ...(f.myMentionsOnly && viewer ? { mentionedUid: viewer } : {}),
    ...(f.mentionedUids?.length ? { mentioningAny: f.mentionedUids } : {}),
    ...(f.hasAttachments ? { hasAttachments: true } : {}),
    ...(f.attachmentTypes?.length ? { attachmentTypes: f.attachmentTypes } : {}),
    ...(f.hasLinks ? { hasLinks: true } : {}),
    ...(f.searchKey ? { searchKey: f.searchKey } : {}),
    ...(f.fromTimestamp !== undefined ? { fromTimestamp: f.fromTimestamp } : {}),
    ...(f.toTimestamp !== undefined ? { toTimestamp: f.toTimestamp } : {}),
    ...(f.hideMessagesFromBlockedUsers ? { excludeSenders: await app.queries.blockedBy(context) } : {}),
    // Both asked: unread is the narrower (everything read was delivered).
    ...(unseen && viewer ? { unseenBy: await app.queries.marksOf(context, unseen, conversationId) } : {}),
  };
}

/** The listed messages with the mention facts the list asked for. */
function shownWith(app: MessagesApp, context: RequestContext, items: ApiObject[], f: MessageFilters): Promise<ApiObject[]> {
  if (!f.mentionsWithTagInfo && !f.mentionsWithBlockedInfo) return Promise.resolve(items);
  return app.queries.withMentionInfo(context, items, {
    tags: f.mentionsWithTagInfo === true,
    ...(f.mentionsWithBlockedInfo && context.actor.uid ? { blockedFor: context.actor.uid } : {}),
  });
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


/** The filters that select a page-numbered list's messages (what a cursor is bound to). */
function selectingFilters(filters: MessageFilters): Record<string, unknown> {
  const paging = new Set(['page', 'perPage', 'limit', 'cursor']);
  return Object.fromEntries(Object.entries(filters).filter(([name]) => !paging.has(name)));
}

/**
 * What goes with `asOf`: paging, and `withTags` (tags are always shown). The live filters run inside the
 * store's query, which a replay does not have (ADR 0033).
 */
const AS_OF_COMPANIONS = new Set(['asOf', 'limit', 'perPage', 'id', 'sentAt', 'affix', 'withTags']);

/** The state of one conversation as of `asOf`, paged like its live list; the other filters are refused, named. */
async function asOfPage(asOf: MessagesAsOf, context: RequestContext, base: MessageQuery, filters: MessageFilters, defaultAffix: 'append' | 'prepend') {
  const other = Object.entries(filters).find(([name, value]) => !AS_OF_COMPANIONS.has(name) && value !== undefined && value !== false);
  if (other) {
    throw new ApiError('ERR_BAD_REQUEST', `${other[0]}: does not go with asOf; a past state is paged (limit, id, sentAt, affix) but not filtered`, {
      fields: [{ field: other[0], problem: 'not with asOf' }],
    });
  }
  if (base.conversationId === undefined) {
    throw new ApiError('ERR_EMPTY_ON_BEHALF_OF', 'asOf reads one conversation: send onBehalfOf, the user whose conversation with this one it is.');
  }
  const bound = parseAsOf(filters.asOf, context.actor.appId, Date.now());
  const limit = filters.perPage ?? filters.limit ?? 100;
  const byId = filters.id !== undefined || filters.sentAt !== undefined || filters.affix !== undefined;
  const cursor = byId || defaultAffix === 'append' ? cursorOf(filters, defaultAffix) : null;
  const page = await asOf.list(context, base.conversationId, bound, cursor, limit);
  return { ...page, limit, cursor };
}

export function messagesRouter(app: MessagesApp, asOf: MessagesAsOf): Router {
  const router = Router();

  /** Without `onBehalfOf` the app itself sends, as `app_system` (docs/behaviour/messages.md). */
  // Usually answered before express (`sendRoute`); here when tracing is on or the request is not plain JSON.
  router.post('/v3/messages', async (req, res) => {
    res.json({ data: await sendAs(app, req, actorOf(req).uid ?? null) });
  });

  router.post('/v3/bots/:uid/messages', async (req, res) => {
    res.json({ data: await sendAs(app, req, pathUid(req)) });
  });

  router.post('/v3/messages/:id/thread', async (req, res) => {
    const parentId = pathMessageId(String(req.params['id']));
    res.json({ data: await sendAs(app, req, actingUid(actorOf(req)), parentId) });
  });

  /** A cursor list (`limit`, `id`/`sentAt` + `affix`) within `base`, with the catalogue's filters. */
  const cursorList = async (context: RequestContext, base: MessageQuery, filters: MessageFilters) => {
    const query = await queryOf(app, context, base, filters);
    const limit = filters.limit ?? 100;
    const cursor = cursorOf(filters, 'append');
    const [items, total] = await Promise.all([
      app.queries.listByCursor(context, query, cursor, limit),
      filters.count ? app.queries.countMatching(query) : Promise.resolve(undefined),
    ]);
    const meta = cursorMeta(items, limit, cursor);
    return {
      data: await shownWith(app, context, items, filters),
      meta: total !== undefined ? { ...meta, current: { ...meta.current, total } } : meta,
    };
  };

  router.get('/v3/messages', async (req, res) => {
    const context = requestContextOf(req);
    const filters = parseQuery(allMessagesSchema, req.query);
    const visibleTo = await app.queries.visibilityOf(context);
    res.json(await cursorList(context, { appId: context.actor.appId, ...(visibleTo ? { visibleTo } : {}) }, filters));
  });

  router.get('/v3/groups/:guid/messages', async (req, res) => {
    const context = requestContextOf(req);
    const filters = parseQuery(conversationMessagesSchema, req.query);
    const base = await app.queries.groupConversationQuery(context, pathGuid(req));
    if (filters.asOf !== undefined) {
      const { items, limit, cursor } = await asOfPage(asOf, context, base, filters, 'append');
      res.json({ data: items, meta: cursorMeta(items, limit, cursor) });
      return;
    }
    res.json(await cursorList(context, base, filters));
  });

  router.get('/v3/users/:uid/messages', async (req, res) => {
    const context = requestContextOf(req);
    const filters: MessageFilters = parseQuery(userMessagesSchema, req.query);
    const base = await app.queries.userConversationQuery(context, pathUid(req));
    if (filters.asOf !== undefined) {
      // Without id, sentAt or affix: the first page in id order, as the live page-numbered list starts.
      const { items, total, limit, cursor } = await asOfPage(asOf, context, base, filters, 'prepend');
      const edge = cursor?.direction === 'before' ? items[0] : items.at(-1);
      res.json({
        data: items,
        meta: {
          pagination: pagination(total, items.length, limit, 1),
          ...(edge ? { cursor: { id: Number(edge['id']), affix: cursor?.direction === 'before' ? 'prepend' : 'append' } } : {}),
        },
      });
      return;
    }
    const query = await queryOf(app, context, base, filters);
    const perPage = filters.perPage ?? filters.limit ?? 100;
    const byId = filters.id !== undefined || filters.sentAt !== undefined || filters.affix !== undefined;
    if (byId && filters.cursor !== undefined) {
      throw new ApiError('ERR_BAD_REQUEST', 'cursor: continues a page-numbered list; it does not go with id, sentAt or affix.');
    }
    if (byId) {
      const cursor = cursorOf(filters, 'prepend');
      const [items, total] = await Promise.all([app.queries.listByCursor(context, query, cursor, perPage), app.queries.countMatching(query)]);
      const edge = cursor?.direction === 'before' ? items[0] : items.at(-1);
      res.json({
        data: await shownWith(app, context, items, filters),
        meta: {
          pagination: pagination(total, items.length, perPage, 1),
          ...(edge ? { cursor: { id: Number(edge['id']), affix: filters.affix ?? 'prepend' } } : {}),
        },
      });
      return;
    }
    const position = new ListCursor('user-list-user-messages', { ...selectingFilters(filters), uid: pathUid(req), by: context.actor.uid }, filters.cursor, filters.page ?? 1);
    const { total, items, more, last } = await app.queries.listByPage(context, query, position.position(perPage), perPage);
    const next = position.next(last, more);
    res.json({
      data: await shownWith(app, context, items, filters),
      meta: {
        pagination: pagination(total, items.length, perPage, position.page),
        cursor: last ? { id: Number(last[0]), affix: 'append', next } : { next },
      },
    });
  });

  router.get('/v3/messages/:id', async (req, res) => {
    res.json({ data: await app.queries.get(requestContextOf(req), pathMessageId(String(req.params['id']))) });
  });

  router.put('/v3/messages/:id', async (req, res) => {
    const id = pathMessageId(String(req.params['id']));
    const input = parseEditBody(req.body ?? null);
    res.json({ data: await app.changes.edit(requestContextOf(req), id, input) });
  });

  router.delete('/v3/messages/:id', async (req, res) => {
    const id = pathMessageId(String(req.params['id']));
    const { permanent } = parseWith(deleteSchema, req.body ?? {});
    res.json({ data: await app.changes.delete(requestContextOf(req), id, permanent ?? false) });
  });

  router.get('/v3/messages/:id/thread', async (req, res) => {
    const context = requestContextOf(req);
    const { perPage, page, cursor } = parseQuery(threadPageSchema, req.query);
    const parentId = pathMessageId(String(req.params['id']));
    const position = new ListCursor('list-all-thread-messages', { parentId, by: context.actor.uid }, cursor, page);
    const query = await app.queries.threadQuery(context, parentId);
    const { items, more, last } = await app.queries.listByPage(context, query, position.position(perPage), perPage);
    res.json({ data: items, meta: { ...cursorMeta(items, perPage, null), cursor: { next: position.next(last, more) } } });
  });

  const reactionList = async (req: Request, reaction?: string) => {
    const items = await app.reactions.list(requestContextOf(req), pathMessageId(String(req.params['id'])), reaction);
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
    const context = requestContextOf(req);
    actingUid(context.actor);
    res.json({ data: await app.reactions.change(context, pathMessageId(String(req.params['id'])), pathReaction(String(req.params['reaction'])), 'add') });
  });

  router.delete('/v3/messages/:id/reactions/:reaction', async (req, res) => {
    const context = requestContextOf(req);
    actingUid(context.actor);
    res.json({ data: await app.reactions.change(context, pathMessageId(String(req.params['id'])), pathReaction(String(req.params['reaction'])), 'remove') });
  });

  router.post('/v3/messages/:id/pin', async (req, res) => {
    res.json({ data: await app.pins.change(requestContextOf(req), pathMessageId(String(req.params['id'])), 'pin') });
  });

  router.delete('/v3/messages/:id/pin', async (req, res) => {
    res.json({ data: await app.pins.change(requestContextOf(req), pathMessageId(String(req.params['id'])), 'unpin') });
  });

  return router;
}
