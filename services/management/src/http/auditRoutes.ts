import { ApiError } from '@chat/contracts';
import { ListCursor, actorOf, listMeta, parseQuery } from '@chat/http';
import { Router } from 'express';
import type { AuditQueries } from '../app/auditQueries.js';
import type { AuditEntry } from '../domain/auditLog.js';
import { auditQuery } from './schemas.js';

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

/**
 * Ours: `GET /v3/apikeys/{apiKey}/audit`, what one API key of the calling app did, newest first
 * (docs/behaviour/management.md, ADR 0034). Paged like every list: `page`/`perPage`, or `cursor`.
 */
export function auditRouter(audit: AuditQueries): Router {
  const router = Router();
  router.get('/v3/apikeys/:apiKey/audit', async (req, res) => {
    const { appId } = actorOf(req);
    const { type, since, until, page, perPage, cursor } = parseQuery(auditQuery, req.query);
    const key = await audit.key(appId, req.params.apiKey);
    const request = { types: type, since, until };
    const position = new ListCursor('apikey-audit', { keyId: key.keyId, types: type ? [...type].sort() : undefined, since, until }, cursor, page);
    const [belowKey] = position.after ?? [];
    if (belowKey !== undefined && typeof belowKey !== 'string') {
      throw new ApiError('ERR_BAD_REQUEST', 'cursor: not a cursor this API issued', { fields: [{ field: 'cursor', problem: 'not a cursor this API issued' }] });
    }
    const { entries, total, more } = await audit.page(appId, key.keyId, request, { belowKey, skip: position.offset(perPage) }, perPage);
    const last = entries.at(-1);
    res.json({ data: entries.map(entryBody), meta: listMeta(total, entries.length, perPage, position, position.next(last ? [last.k] : undefined, more)) });
  });
  return router;
}
