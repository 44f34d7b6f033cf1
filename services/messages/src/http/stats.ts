import { epochSeconds } from '@chat/contracts';
import { actorOf, parseQuery } from '@chat/http';
import { Router } from 'express';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { messageMetrics, usageMetrics } from '../domain/usageMetrics.js';
import { messageStatsSchema, usageStatsSchema } from './schemas.js';

const DEFAULT_WINDOW_SECONDS = 30 * 86_400;
/** A range longer than this would read too much for one request (the metrics are computed on read). */
const MAX_RANGE_SECONDS = 366 * 86_400;

/**
 * Usage metrics, computed from the messages and calls read models (both projected from this service's
 * event stream, so a replay from offset 0 gives the same figures).
 */
export function statsRouter(readModels: MessagesReadModels, clock: () => Date = () => new Date()): Router {
  const router = Router();

  router.get('/v3/stats', async (req, res) => {
    const { appId } = actorOf(req);
    const range = parseQuery(usageStatsSchema, req.query);
    const toDate = Math.min(range.toDate, range.fromDate + MAX_RANGE_SECONDS);
    const [messages, calls] = await Promise.all([
      readModels.messageFactsBetween(appId, range.fromDate, toDate),
      readModels.callsOverlapping(appId, range.fromDate, toDate),
    ]);
    res.json({ data: usageMetrics(messages, calls, { fromDate: range.fromDate, toDate }) });
  });

  router.get('/v3/stats/messages', async (req, res) => {
    const { appId } = actorOf(req);
    const query = parseQuery(messageStatsSchema, req.query);
    const toDate = query.toDate ?? epochSeconds(clock());
    const fromDate = Math.max(query.fromDate ?? toDate - DEFAULT_WINDOW_SECONDS, toDate - MAX_RANGE_SECONDS);
    const messages = await readModels.messageFactsBetween(appId, fromDate, toDate);
    res.json({ data: messageMetrics(appId, messages, { fromDate, toDate }) });
  });

  return router;
}
