import { ApiError } from '@chat/contracts';
import { ListCursor, actorOf, listMeta, parseQuery, requireManagementCaller } from '@chat/http';
import { Router } from 'express';
import type { Request, Response } from 'express';
import type { AuditQueries } from '../../app/audit/auditQueries.js';
import type { AuditEntry } from '../../domain/audit/auditLog.js';
import { auditQuery } from '../schemas.js';

/** One trail entry as the API shows it; times in unix seconds (CometChat's unit) and milliseconds. */
function entryBody(entry: AuditEntry) {
  const at = Date.parse(entry.occurredAt);
  return {
    eventId: entry.id,
    type: entry.type,
    streamId: entry.streamId,
    version: entry.version,
    onBehalfOf: entry.uid ?? null,
    scope: entry.scope,
    requestId: entry.requestId,
    imported: entry.imported === true,
    occurredAt: Math.floor(at / 1000),
    occurredAtMs: at,
  };
}

/** A page of the trail of the key `req.params.apiKey` names within `appId`. */
async function answerPage(audit: AuditQueries, appId: string, req: Request, res: Response): Promise<void> {
  const { type, since, until, page, perPage, cursor } = parseQuery(auditQuery, req.query);
  const key = await audit.key(appId, String(req.params['apiKey']));
  const position = new ListCursor('apikey-audit', { keyId: key.keyId, types: type ? [...type].sort() : undefined, since, until }, cursor, page);
  const [belowKey] = position.after ?? [];
  if (belowKey !== undefined && typeof belowKey !== 'string') {
    throw new ApiError('ERR_BAD_REQUEST', 'cursor: not a cursor this API issued', { fields: [{ field: 'cursor', problem: 'not a cursor this API issued' }] });
  }
  const { entries, total, more } = await audit.page(appId, key.keyId, { types: type, since, until }, { belowKey, skip: position.offset(perPage) }, perPage);
  const last = entries.at(-1);
  res.json({ data: entries.map(entryBody), meta: listMeta(total, entries.length, perPage, position, position.next(last ? [last.k] : undefined, more)) });
}

/**
 * Ours: what one API key did, newest first (docs/behaviour/management.md, ADR 0034). Paged like every
 * list: `page`/`perPage`, or `cursor`. On the chat API a REST key reads its own app's keys; on the
 * management API the operator reads any app's.
 */
export function auditRouter(audit: AuditQueries): Router {
  const router = Router();
  router.get('/v3/apikeys/:apiKey/audit', async (req, res) => {
    await answerPage(audit, actorOf(req).appId, req, res);
  });
  router.get('/apps/:appId/apikeys/:apiKey/audit', requireManagementCaller, async (req, res) => {
    const { appId } = await audit.app(String(req.params['appId']));
    await answerPage(audit, appId, req, res);
  });
  return router;
}
