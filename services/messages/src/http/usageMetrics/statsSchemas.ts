import { z } from 'zod';
import { secondsOf } from '../../domain/usageMetrics/usageMetrics.js';

// A missing value reaches the number check as NaN, so one message serves both.
const epoch = z.coerce.number('required, a number').int('an integer (epoch seconds or milliseconds)').min(0);
const fromBeforeTo = (q: { fromDate?: number | undefined; toDate?: number | undefined }) =>
  q.fromDate === undefined || q.toDate === undefined || secondsOf(q.fromDate) <= secondsOf(q.toDate);

/**
 * `GET /stats`: a range CometChat documents as required "Unix timestamps" yet echoes in epoch
 * milliseconds in its example; either unit is taken (`secondsOf`).
 */
export const usageRangeSchema = z.object({ fromDate: epoch, toDate: epoch }).refine(fromBeforeTo, { path: ['toDate'], message: 'must not be before fromDate' });

/** `GET /stats/messages`: CometChat lists no parameters (the last hour); ours takes either end of a range. */
export const messageMetricsRangeSchema = z
  .object({ fromDate: epoch.optional(), toDate: epoch.optional() })
  .refine(fromBeforeTo, { path: ['toDate'], message: 'must not be before fromDate' });
