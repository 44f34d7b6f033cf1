import { OPERATIONS_PATHS, answerOperations, withOperations } from '@chat/http';
import type { Probes } from '@chat/http';
import express from 'express';
import type { Express } from 'express';
import type { RequestListener } from 'node:http';
import { CONSOLE_PAGE } from './consolePage.js';
import { DEMO_PATHS, demoRoutes } from './demoPage.js';
import { DOCS_PAGE } from './docsPage.js';
import { sendPage } from './pageShell.js';
import type { HostTenancy } from './tenancy.js';

/**
 * The paths the gateway answers itself instead of forwarding. The request handler tests a path
 * against this set once (one hash probe) before it does anything else.
 */
export const OWN_PATHS: ReadonlySet<string> = new Set([OPERATIONS_PATHS.live, OPERATIONS_PATHS.ready, OPERATIONS_PATHS.metrics, '/openapi.json', '/docs', '/console', DEMO_PATHS.page, DEMO_PATHS.script]);

/** What the admin port takes over when it is configured. */
const ADMIN_PATHS: ReadonlySet<string> = new Set([OPERATIONS_PATHS.ready, OPERATIONS_PATHS.metrics]);

/**
 * Whether the API port answers one of its own paths on this host (ADR 0040). Liveness says nothing
 * and answers everywhere (a probe names no host); readiness, metrics, the console and the API
 * reference are the operators': never on a tenant's host (`{appId}.api-…`, `{appId}.call-…`), and
 * readiness and metrics not on the API port at all once an admin port serves them. The demo chat page
 * (ADR 0080) follows the operators' pages: a person names the app on it, so it needs no tenant host.
 */
export function answersOwnPath(path: string, tenancy: HostTenancy, adminPortSeparate: boolean): boolean {
  if (path === OPERATIONS_PATHS.live) return true;
  if (adminPortSeparate && ADMIN_PATHS.has(path)) return false;
  return tenancy.kind === 'plain' || tenancy.kind === 'management';
}

/** The admin port: liveness, readiness and metrics, nothing else. */
export function adminListener(probes: Probes): RequestListener {
  const notFound = JSON.stringify({ error: { code: 'ERR_API_NOT_FOUND', message: 'The admin port answers /healthz, /readyz and /metrics only.' } });
  return withOperations((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(notFound) });
    res.end(notFound);
  }, probes);
}

/**
 * Express serves the gateway's own, non-proxied routes (ADR 0027): they are few and rare, so a
 * framework costs nothing there, while the proxied path stays on the plain `node:http` handler.
 */
export function ownRoutesApp(probes: Probes, apiDescription: string | undefined, demoScript?: string): Express {
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
    res.set('x-content-type-options', 'nosniff');
    if (apiDescription === undefined) {
      res.status(404).json({ error: { code: 'ERR_API_NOT_FOUND', message: 'This gateway was started without an API description.' } });
      return;
    }
    res.type('application/json').send(apiDescription);
  });
  app.get('/docs', (_req, res) => sendPage(res, DOCS_PAGE));
  app.get('/console', (_req, res) => sendPage(res, CONSOLE_PAGE));
  demoRoutes(app, demoScript);
  return app;
}
