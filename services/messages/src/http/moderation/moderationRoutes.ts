import type { KeywordList, ModerationReason, ModerationRule } from '@chat/contracts';
import { ListCursor, listMeta, pageInMemory, parseQuery, parseWith } from '@chat/http';
import express, { Router } from 'express';
import type { Request, RequestHandler } from 'express';
import type { ReviewList } from '../../adapters/moderation/moderationReadModels.js';
import type { MessageReview } from '../../app/moderation/messageReview.js';
import type { ModerationSettingsApp } from '../../app/moderation/moderationSettings.js';
import type { SettingsKind } from '../../domain/moderation/moderationSettings.js';
import {
  checkedTerms,
  createKeywordsBody,
  keywordsInput,
  createReasonBody,
  createRuleBody,
  flagBody,
  reviewBlockedBody,
  reviewFlaggedBody,
  ruleConditions,
  settingsPageQuery,
  updateKeywordsBody,
  updateReasonBody,
  updateRuleBody,
} from './moderationSchemas.js';
import type { RuleBody } from './moderationSchemas.js';
import { pathMessageId } from '../schemas.js';
import { requestContextOf } from '../requestContext.js';

function param(req: Request, name: string): string {
  return String(req.params[name] ?? '');
}

export function reasonView(reason: ModerationReason) {
  return { id: reason.id, name: reason.name, description: reason.description, createdAt: reason.createdAt, updatedAt: reason.updatedAt };
}

export function ruleView(rule: ModerationRule) {
  return {
    id: rule.id,
    name: rule.name,
    description: rule.description,
    enabled: rule.enabled,
    conditions: rule.conditions,
    action: rule.action,
    active: true,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
    revisionId: rule.revisionId,
  };
}

export function keywordListView(list: KeywordList) {
  return { ...list, active: true };
}

/** A page of a list held in the app's settings, oldest first; `meta.current` as CometChat's moderation lists show it. */
export function settingsPage<T extends { createdAt: number }>(req: Request, list: string, items: readonly T[], keyOf: (item: T) => string) {
  const query = parseQuery(settingsPageQuery, req.query);
  const perPage = query.perPage ?? query.limit ?? 100;
  const cursor = new ListCursor(list, {}, query.cursor, query.page);
  const ordered = [...items].sort((a, b) => a.createdAt - b.createdAt || keyOf(a).localeCompare(keyOf(b)));
  const page = pageInMemory(ordered, (item) => [item.createdAt, keyOf(item)], [1, 1], cursor, perPage);
  return { items: page.items, meta: { current: { limit: perPage, count: page.items.length }, ...listMeta(items.length, page.items.length, perPage, cursor, page.next) } };
}

interface SettingsRoutes<Entity> {
  path: string;
  kind: SettingsKind;
  list: string;
  label: string;
  param: string;
  view: (entity: Entity) => Record<string, unknown>;
  itemsOf: (settings: Awaited<ReturnType<ModerationSettingsApp['settings']>>) => readonly Entity[];
  keyOf: (entity: Entity) => string;
  created: (req: Request) => Promise<{ id: string; fields: Record<string, unknown> }>;
  updated: (req: Request, current: Entity) => Promise<Record<string, unknown>>;
  /** A body parser of the resource's own, before the JSON one (keyword lists take multipart forms). */
  bodyParser?: RequestHandler;
}

/** The five operations every settings resource has (reasons, rules, keyword lists). */
function settingsRoutes<Entity>(router: Router, app: ModerationSettingsApp, spec: SettingsRoutes<Entity>): void {
  router.get(spec.path, async (req, res) => {
    const { items, meta } = settingsPage(req, spec.list, spec.itemsOf(await app.settings(requestContextOf(req))) as Array<Entity & { createdAt: number }>, spec.keyOf);
    res.json({ data: items.map(spec.view), meta });
  });
  const parsers = spec.bodyParser ? [spec.bodyParser] : [];
  router.post(spec.path, ...parsers, async (req, res) => {
    const { id, fields } = await spec.created(req);
    res.json({ data: spec.view((await app.save(requestContextOf(req), spec.kind, 'create', id, fields)) as Entity) });
  });
  router.get(`${spec.path}/:${spec.param}`, async (req, res) => {
    res.json({ data: spec.view((await app.one(requestContextOf(req), spec.kind, param(req, spec.param))) as Entity) });
  });
  router.put(`${spec.path}/:${spec.param}`, ...parsers, async (req, res) => {
    const context = requestContextOf(req);
    const id = param(req, spec.param);
    const current = (await app.one(context, spec.kind, id)) as Entity;
    res.json({ data: spec.view((await app.save(context, spec.kind, 'update', id, await spec.updated(req, current))) as Entity) });
  });
  router.delete(`${spec.path}/:${spec.param}`, async (req, res) => {
    const id = param(req, spec.param);
    await app.remove(requestContextOf(req), spec.kind, id);
    res.json({ data: { success: true, message: `The ${spec.label} with id ${id} has been deleted successfully.` } });
  });
}

/** The body's rule fields as stored (conditions numbered and checked). */
function ruleFields(body: RuleBody): Record<string, unknown> {
  // The id comes from the path (or was taken for a create); filters are refused by the schema unless empty.
  const { name, description, enabled, action, conditions } = body;
  return Object.fromEntries(
    Object.entries({ name, description, enabled, action, conditions: conditions ? ruleConditions(conditions) : undefined }).filter(([, v]) => v !== undefined),
  );
}

/** `/moderation/…`: settings (reasons, rules and their revisions, keyword lists) and the review queues. */
export function moderationRouter(settings: ModerationSettingsApp, review: MessageReview): Router {
  const router = Router();

  settingsRoutes<ModerationReason>(router, settings, {
    path: '/v3/moderation/reasons',
    kind: 'reason',
    list: 'list-reasons',
    label: 'reason',
    param: 'id',
    view: reasonView,
    itemsOf: (s) => s.reasons,
    keyOf: (r) => r.id,
    created: (req) => {
      const { id, ...fields } = parseWith(createReasonBody, req.body ?? null);
      return Promise.resolve({ id, fields });
    },
    updated: (req) => Promise.resolve(parseWith(updateReasonBody, req.body ?? null)),
  });

  settingsRoutes<ModerationRule>(router, settings, {
    path: '/v3/moderation/rules',
    kind: 'rule',
    list: 'list-rules',
    label: 'rule',
    param: 'ruleId',
    view: ruleView,
    itemsOf: (s) => s.rules,
    keyOf: (r) => r.id,
    created: (req) => {
      const body = parseWith(createRuleBody, req.body ?? null);
      return Promise.resolve({ id: body.id, fields: ruleFields(body) });
    },
    updated: (req) => Promise.resolve(ruleFields(parseWith(updateRuleBody, req.body ?? null))),
  });

  settingsRoutes<KeywordList>(router, settings, {
    path: '/v3/moderation/keywords',
    kind: 'keywordList',
    list: 'list-rule-keywords',
    label: 'keyword list',
    param: 'keywordId',
    view: keywordListView,
    itemsOf: (s) => s.keywordLists,
    keyOf: (l) => l.id,
    created: async (req) => {
      const { id, ...fields } = parseWith(createKeywordsBody, await keywordsInput(req.get('content-type'), req.body));
      checkedTerms(fields, fields.category);
      return { id, fields };
    },
    updated: async (req, current) => {
      const fields = parseWith(updateKeywordsBody, await keywordsInput(req.get('content-type'), req.body));
      checkedTerms(fields, fields.category ?? current.category);
      delete fields.id;
      return fields;
    },
    bodyParser: express.raw({ type: 'multipart/form-data', limit: '1mb' }),
  });

  router.get('/v3/moderation/rules/:ruleId/revisions', async (req, res) => {
    const context = requestContextOf(req);
    const ruleId = param(req, 'ruleId');
    await settings.one(context, 'rule', ruleId);
    const revisions = (await settings.settings(context)).ruleRevisions.filter((r) => r.id === ruleId).reverse();
    const current = revisions[0]?.revision;
    const shown = revisions.map((r) => ({ ...ruleView(r), active: r.revision === current }));
    const { items, meta } = settingsPage(req, `list-rule-revisions:${ruleId}`, shown.map((r, i) => ({ ...r, order: i })), (r) => String(r.order).padStart(6, '0'));
    res.json({ data: items.map(({ order: _order, ...r }) => r), meta });
  });

  router.post('/v3/messages/:id/flagged', async (req, res) => {
    const id = pathMessageId(param(req, 'id'));
    const body = parseWith(flagBody, req.body ?? null);
    res.json({ data: await review.flag(requestContextOf(req), id, body) });
  });

  const reviewList = (path: string, list: ReviewList, name: string) =>
    router.get(path, async (req, res) => {
      const query = parseQuery(settingsPageQuery, req.query);
      const perPage = query.perPage ?? query.limit ?? 100;
      const cursor = new ListCursor(name, {}, query.cursor, query.page);
      const { total, more, items, last } = await review.list(requestContextOf(req), list, cursor.position(perPage), perPage);
      res.json({ data: items, meta: { current: { limit: perPage, count: items.length }, ...listMeta(total, items.length, perPage, cursor, cursor.next(last, more)) } });
    });
  reviewList('/v3/moderation/flagged-messages', { queue: 'flagged', status: 'pending' }, 'list-flagged-messages');
  reviewList('/v3/moderation/blocked-messages', { queue: 'blocked', status: 'pending' }, 'list-moderation-blocked-messages');
  reviewList('/v3/moderation/reviewed-messages', { reviewed: true }, 'list-reviewed-messages');

  router.patch('/v3/moderation/flagged-messages/:id', async (req, res) => {
    const { status } = parseWith(reviewFlaggedBody, req.body ?? null);
    res.json({ data: await review.reviewFlagged(requestContextOf(req), pathMessageId(param(req, 'id')), status) });
  });

  router.patch('/v3/moderation/blocked-messages/:id', async (req, res) => {
    const { status } = parseWith(reviewBlockedBody, req.body ?? null);
    res.json({ data: await review.reviewBlocked(requestContextOf(req), pathMessageId(param(req, 'id')), status) });
  });

  return router;
}
