import { OPERATIONS_PATHS, answerOperations } from '@chat/http';
import type { Probes } from '@chat/http';
import express from 'express';
import type { Express } from 'express';
import { CONSOLE_PAGE } from './consolePage.js';
import { DOCS_PAGE } from './docsPage.js';

/**
 * The paths the gateway answers itself instead of forwarding. The request handler tests a path
 * against this set once (one hash probe) before it does anything else.
 */
export const OWN_PATHS: ReadonlySet<string> = new Set([OPERATIONS_PATHS.live, OPERATIONS_PATHS.ready, OPERATIONS_PATHS.metrics, '/openapi.json', '/docs', '/console']);

/**
 * Express serves the gateway's own, non-proxied routes (ADR 0027): they are few and rare, so a
 * framework costs nothing there, while the proxied path stays on the plain `node:http` handler.
 */
export function ownRoutesApp(probes: Probes, apiDescription: string | undefined): Express {
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
  // The generated description (docs/openapi.json, `npm run openapi`), read once at start.
  app.get('/openapi.json', (_req, res) => {
    if (apiDescription === undefined) {
      res.status(404).json({ error: { code: 'ERR_API_NOT_FOUND', message: 'This gateway was started without an API description.' } });
      return;
    }
    res.type('application/json').send(apiDescription);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  app.get('/console', (_req, res) => {
    res.type('html').send(CONSOLE_PAGE);
  });
  return app;
}
