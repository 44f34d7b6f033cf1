import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { metricsEnabled, metricsRegistry } from './metrics.js';
import type { Probes } from './probes.js';

/** Paths every process answers itself, in front of its API (Kubernetes probes and Prometheus). */
export const OPERATIONS_PATHS = { live: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * Answers the operations paths, or returns false for any other request. `/healthz`: the process is
 * up and its event loop turns. `/readyz`: 200 while every check that gates readiness passes, else 503
 * with the failing ones named (status `degraded` when only checks that do not gate it fail). `/metrics`: Prometheus text format (404 when `METRICS=off`).
 */
export async function answerOperations(req: IncomingMessage, res: ServerResponse, probes: Probes): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  switch (path) {
    case OPERATIONS_PATHS.live:
      send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ status: 'ok' }));
      return true;
    case OPERATIONS_PATHS.ready: {
      const { ready, checks, degraded } = await probes.readiness();
      const status = !ready ? 'unready' : degraded ? 'degraded' : 'ready';
      send(res, ready ? 200 : 503, 'application/json; charset=utf-8', JSON.stringify({ status, checks, ...(degraded ? { degraded } : {}) }));
      return true;
    }
    case OPERATIONS_PATHS.metrics:
      if (metricsEnabled()) send(res, 200, metricsRegistry.contentType, await metricsRegistry.metrics());
      else send(res, 404, 'text/plain; charset=utf-8', 'metrics are off in this process (METRICS=off)\n');
      return true;
    default:
      return false;
  }
}

/** `handler` with the operations paths in front of it (outside any load shedding: probes must answer under load). */
export function withOperations(handler: RequestListener, probes: Probes): RequestListener {
  return (req, res) => {
    const path = req.url ?? '';
    // A quick test first: API requests never pay for more than one comparison of the first segment.
    if (!(path.startsWith('/healthz') || path.startsWith('/readyz') || path.startsWith('/metrics'))) return void handler(req, res);
    answerOperations(req, res, probes).then(
      (answered) => {
        if (!answered) handler(req, res);
      },
      (error: unknown) => {
        if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `operations endpoint failed: ${String(error)}`);
      },
    );
  };
}
