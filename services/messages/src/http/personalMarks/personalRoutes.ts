import { ApiError, isUid, normalizeUid } from '@chat/contracts';
import { actingUid, pagination, parseQuery, parseWith } from '@chat/http';
import { Router } from 'express';
import { z } from 'zod';
import type { MessageInteractions } from '../../app/personalMarks/messageInteractions.js';
import type { SavedMessages } from '../../app/personalMarks/savedMessages.js';
import type { ThreadSubscriptions } from '../../app/personalMarks/threadSubscriptions.js';
import { MAX_SAVED_PER_USER } from '../../domain/personalMarks/savedMessages.js';
import { pathMessageId } from '../schemas.js';
import { requestContextOf } from '../requestContext.js';

const count = (max: number) => z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(max, `at most ${max}`);
const uidOrGuid = z.string().trim().toLowerCase().refine((value) => isUid(normalizeUid(value)), 'a uid or guid (a-z, 0-9, - and _)');

/** `GET /messages?saved=true`: the acting user's saved list (it spans conversations, so it takes no other filter). */
export const savedListSchema = z.object({
  saved: z.enum(['true', '1'], 'true (leave it out for the other lists)'),
  limit: count(MAX_SAVED_PER_USER).default(MAX_SAVED_PER_USER),
});

/** `PATCH /messages/{id}/interacted`: the ids of the message's elements the user used. */
export const interactedBodySchema = z.object(
  { interactions: z.array(z.string().trim().min(1, 'an element id').max(100, 'at most 100 characters'), 'a list of element ids').min(1, 'at least one element id').max(50, 'at most 50 element ids') },
  'an object with interactions',
);

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'], 'true or false')])
  .transform((v) => v === true || v === 'true' || v === '1')
  .optional();

/**
 * `GET /threads`: the SDKs' wire names (`limit`, `participatedByMe`), numbered pages (`page`); `uid` (a
 * one-on-one conversation) or `guid` (a group), not both.
 */
export const threadListSchema = z
  .object({ uid: uidOrGuid.optional(), guid: uidOrGuid.optional(), participatedByMe: flag, limit: count(1000).default(30), page: count(1_000_000).default(1) })
  .refine((q) => q.uid === undefined || q.guid === undefined, { message: 'uid and guid name different conversations; give one', path: ['guid'] });

/** A user's own marks on messages: saves, interactions, thread subscriptions, and the thread inbox. */
export function personalRouter(saved: SavedMessages, interactions: MessageInteractions, threads: ThreadSubscriptions): Router {
  const router = Router();

  // The saved list is CometChat's `GET /messages` with `saved=true` (the SDKs' `setSaved`); any other
  // query goes on to the message lists.
  router.get('/v3/messages', async (req, res, next) => {
    const given = req.query['saved'];
    if (given === undefined || given === '') {
      next();
      return;
    }
    const context = requestContextOf(req);
    const uid = actingUid(context.actor);
    const { limit } = parseQuery(savedListSchema, req.query);
    const items = await saved.list(context, uid, limit);
    res.json({ data: items, meta: { current: { limit, count: items.length } } });
  });

  router.post('/v3/messages/:id/save', async (req, res) => {
    const context = requestContextOf(req);
    res.json({ data: await saved.change(context, actingUid(context.actor), pathMessageId(String(req.params['id'])), 'save') });
  });

  router.delete('/v3/messages/:id/save', async (req, res) => {
    const context = requestContextOf(req);
    res.json({ data: await saved.change(context, actingUid(context.actor), pathMessageId(String(req.params['id'])), 'unsave') });
  });

  router.patch('/v3/messages/:id/interacted', async (req, res) => {
    const context = requestContextOf(req);
    const uid = actingUid(context.actor);
    const id = pathMessageId(String(req.params['id']));
    const { interactions: elementIds } = parseWith(interactedBodySchema, req.body ?? null);
    res.json({ data: await interactions.mark(context, uid, id, elementIds) });
  });

  router.post('/v3/messages/:id/thread/subscription', async (req, res) => {
    const context = requestContextOf(req);
    res.json({ data: await threads.change(context, actingUid(context.actor), pathMessageId(String(req.params['id'])), 'subscribe') });
  });

  router.delete('/v3/messages/:id/thread/subscription', async (req, res) => {
    const context = requestContextOf(req);
    res.json({ data: await threads.change(context, actingUid(context.actor), pathMessageId(String(req.params['id'])), 'unsubscribe') });
  });

  router.get('/v3/threads', async (req, res) => {
    const context = requestContextOf(req);
    const query = parseQuery(threadListSchema, req.query);
    if (query.uid !== undefined && query.uid === context.actor.uid) {
      throw new ApiError('ERR_BAD_REQUEST', 'uid: names the other user of a one-on-one conversation, not onBehalfOf itself', {
        fields: [{ field: 'uid', problem: 'the acting user' }],
      });
    }
    if (query.participatedByMe === true && context.actor.uid === undefined) {
      throw new ApiError('ERR_BAD_REQUEST', 'participatedByMe: is about one user; send onBehalfOf', {
        fields: [{ field: 'participatedByMe', problem: 'needs onBehalfOf' }],
      });
    }
    const { total, items } = await threads.list(context, {
      perPage: query.limit,
      page: query.page,
      participatedByMe: query.participatedByMe ?? context.actor.uid !== undefined,
      ...(query.uid !== undefined ? { uid: query.uid } : {}),
      ...(query.guid !== undefined ? { guid: query.guid } : {}),
    });
    res.json({ data: items, meta: { pagination: pagination(total, items.length, query.limit, query.page) } });
  });

  return router;
}
