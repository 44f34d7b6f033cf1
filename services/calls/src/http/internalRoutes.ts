import { parseQuery } from '@chat/http';
import { Router } from 'express';
import type { CallsReadModels } from '../adapters/readModels.js';
import { callUsage } from '../domain/callUsage.js';
import { afterCatchUp } from './calls.js';
import type { CatchUp } from './calls.js';
import { callUsageRangeSchema } from './schemas.js';

/**
 * For the messages service only (the gateway forwards catalogue routes, and `/internal` is in no
 * catalogue): the call figures of `GET /stats` over a range (`callUsagePath`), as current as a calls read.
 */
export function internalRouter(readModels: CallsReadModels, catchUp: CatchUp): Router {
  const router = Router();

  router.get('/internal/apps/:appId/call-usage', afterCatchUp(catchUp), async (req, res) => {
    const range = parseQuery(callUsageRangeSchema, req.query);
    const calls = await readModels.callsOverlapping(String(req.params['appId']), range.from, range.to);
    res.json(callUsage(calls, range));
  });

  return router;
}
