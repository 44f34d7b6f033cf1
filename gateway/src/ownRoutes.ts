import { OPERATIONS_PATHS, answerOperations } from '@chat/http';
import type { Probes } from '@chat/http';
import express from 'express';
import type { Express } from 'express';

/**
 * The paths the gateway answers itself instead of forwarding. The request handler tests a path
 * against this set once (one hash probe) before it does anything else.
 */
export const OWN_PATHS: ReadonlySet<string> = new Set([OPERATIONS_PATHS.live, OPERATIONS_PATHS.ready, OPERATIONS_PATHS.metrics]);

/**
 * Express serves the gateway's own, non-proxied routes (ADR 0027): they are few and rare, so a
 * framework costs nothing there, while the proxied path stays on the plain `node:http` handler.
 */
export function ownRoutesApp(probes: Probes): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  for (const path of [OPERATIONS_PATHS.live, OPERATIONS_PATHS.ready, OPERATIONS_PATHS.metrics]) {
    app.get(path, (req, res, next) => {
      answerOperations(req, res, probes).then((answered) => {
        if (!answered) next();
      }, next);
    });
  }
  return app;
}
