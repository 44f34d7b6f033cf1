import { epochSeconds } from '@chat/contracts';
import { actorOf, parseQuery } from '@chat/http';
import { Router } from 'express';
import type { CallUsage } from '@chat/contracts';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import { MILLISECONDS_FROM, messageMetrics, messageMetricsRange, secondsOf, usageMetrics } from '../../domain/usageMetrics/usageMetrics.js';
import type { TimeRange } from '../../domain/usageMetrics/usageMetrics.js';
import { messageMetricsRangeSchema, usageRangeSchema } from './statsSchemas.js';

/** A range longer than this would read too much for one request (the metrics are computed on read). */
const MAX_USAGE_RANGE_SECONDS = 366 * 86_400;

/** Where the call figures come from: the calls service (`CallUsageClient`). */
export interface CallFigures {
  usage(appId: string, from: number, to: number): Promise<CallUsage>;
}

/**
 * Usage metrics, computed from the messages and receipt read models and the calls service's call
 * records (all projected from events, so a replay from offset 0 gives the same figures).
 */
export function statsRouter(readModels: MessagesReadModels, calls: CallFigures, clock: () => Date = () => new Date()): Router {
  const router = Router();

  router.get('/v3/stats', async (req, res) => {
    const { appId } = actorOf(req);
    const given = parseQuery(usageRangeSchema, req.query);
    const fromDate = secondsOf(given.fromDate);
    const range: TimeRange = { fromDate, toDate: Math.min(secondsOf(given.toDate), fromDate + MAX_USAGE_RANGE_SECONDS) };
    const [messages, callUsage] = await Promise.all([
      readModels.messageFactsBetween(appId, range.fromDate, range.toDate),
      calls.usage(appId, range.fromDate, range.toDate),
    ]);
    const { metrics } = usageMetrics(messages, callUsage, range);
    // The range is echoed as given (seconds or milliseconds), its end cut if it was too long.
    const unit = given.toDate >= MILLISECONDS_FROM ? 1000 : 1;
    const toDate = range.toDate < secondsOf(given.toDate) ? range.toDate * unit : given.toDate;
    res.json({ data: { metrics, time_range: { fromDate: given.fromDate, toDate } } });
  });

  router.get('/v3/stats/messages', async (req, res) => {
    const { appId } = actorOf(req);
    const given = parseQuery(messageMetricsRangeSchema, req.query);
    const range = messageMetricsRange(given, epochSeconds(clock()));
    const [messages, receipts] = await Promise.all([
      readModels.messageFactsBetween(appId, range.fromDate, range.toDate),
      readModels.receiptFactsBetween(appId, range.fromDate, range.toDate),
    ]);
    res.json({ data: messageMetrics(appId, messages, receipts, range) });
  });

  return router;
}
