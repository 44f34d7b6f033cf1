import { epochSeconds } from '@chat/contracts';
import { actorOf, parseQuery } from '@chat/http';
import { Router } from 'express';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { messageMetrics, usageMetrics } from '../domain/usageMetrics.js';
import type { TimeRange } from '../domain/usageMetrics.js';
import { statsRangeSchema } from './schemas.js';

const DEFAULT_WINDOW_SECONDS = 30 * 86_400;
/** A range longer than this would read too much for one request (the metrics are computed on read). */
const MAX_RANGE_SECONDS = 366 * 86_400;

/**
 * Usage metrics, computed from the messages and calls read models (both projected from this service's
 * event stream, so a replay from offset 0 gives the same figures).
 */
export function statsRouter(readModels: MessagesReadModels, clock: () => Date = () => new Date()): Router {
  const router = Router();

  /** The range asked for: a missing end defaults to now, a missing start to 30 days before the end. */
  const rangeOf = (query: unknown): TimeRange => {
    const given = parseQuery(statsRangeSchema, query);
    const toDate = given.toDate ?? Math.max(epochSeconds(clock()), given.fromDate ?? 0);
    const fromDate = given.fromDate ?? toDate - DEFAULT_WINDOW_SECONDS;
    return { fromDate, toDate: Math.min(toDate, fromDate + MAX_RANGE_SECONDS) };
  };

  router.get('/v3/stats', async (req, res) => {
    const { appId } = actorOf(req);
    const range = rangeOf(req.query);
    const [messages, calls] = await Promise.all([
      readModels.messageFactsBetween(appId, range.fromDate, range.toDate),
      readModels.callsOverlapping(appId, range.fromDate, range.toDate),
    ]);
    res.json({ data: usageMetrics(messages, calls, range) });
  });

  router.get('/v3/stats/messages', async (req, res) => {
    const { appId } = actorOf(req);
    const range = rangeOf(req.query);
    res.json({ data: messageMetrics(appId, await readModels.messageFactsBetween(appId, range.fromDate, range.toDate), range) });
  });

  return router;
}
