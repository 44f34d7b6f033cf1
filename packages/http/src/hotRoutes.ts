import { consistencyHeaders, encodeConsistencyToken } from '@chat/contracts';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { requestIdOf } from './actor.js';
import { apiErrorOf, serviceLabel } from './app.js';
import { collectingPositions } from './consistency.js';
import { requestObserver } from './metrics.js';
import { inRequestScope } from './requestContext.js';
import { tracingActive } from './tracing.js';

/** A request answered before express: its headers and its parsed JSON body (what express's `req.body` would be). */
export interface HotRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
}

/**
 * A JSON route a service answers on every message (a send), in front of its express app: express's
 * layers, the router's walk, the body parser's content negotiation and `res.json` cost more than the
 * route's own work (ADR 0071). Only an exact `POST <path>` with a JSON body of a declared length within
 * `bodyLimit` bytes is taken; anything else goes to express, which answers it as before.
 */
export interface HotRoute {
  path: string;
  /** The largest body taken here (bytes); a longer one goes to express, whose parser refuses it (413). */
  bodyLimit: number;
  /** The JSON answer (200); a throw answers as express's error middleware would. */
  answer(req: HotRequest): Promise<unknown>;
}

const JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
/** body-parser's strict mode: the first character that is not JSON whitespace opens an object or an array. */
const FIRST_CHAR = /^[ \t\n\r]*([^ \t\n\r])/;

/** What express's JSON parser (strict, utf-8) makes of a body: `{}` when empty, a 400 when not an object or array. */
export function parseJsonBody(raw: string): unknown {
  // Its decoder drops a byte-order mark first.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.length === 0) return {};
  const first = FIRST_CHAR.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw Object.assign(new SyntaxError('strict JSON: an object or an array'), { type: 'entity.parse.failed', status: 400 });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw Object.assign(error as Error, { type: 'entity.parse.failed', status: 400 });
  }
}

/** Whether the request is one `route` takes here (everything the route needs is declared up front). */
function takes(req: IncomingMessage, route: HotRoute): boolean {
  if (req.method !== 'POST' || req.url !== route.path) return false;
  const type = req.headers['content-type'];
  const length = req.headers['content-length'];
  if (type === undefined || !JSON_TYPE.test(type) || length === undefined || req.headers['content-encoding'] !== undefined) return false;
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const bytes = Number(length);
  return Number.isInteger(bytes) && bytes >= 0 && bytes <= route.bodyLimit;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 })));
  });
}

/** JSON as express's `res.json` writes it, with the consistency token of what the request produced. */
function writeJson(res: ServerResponse, status: number, body: unknown, positions: ReadonlyMap<string, number>, retryAfter?: number): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (positions.size > 0) headers[consistencyHeaders.token] = encodeConsistencyToken(positions);
  res.writeHead(status, headers);
  res.end(text);
}

/**
 * Answers `routes` before `api` (the service's express app), with what express's stack does for them:
 * the request histogram, the request scope (the request id on log lines), the consistency token of
 * the writes the answer made, and errors in CometChat's shape. While tracing is on, every request goes
 * to express (its server span).
 */
export function answeringHotRoutes(routes: readonly HotRoute[], api: RequestListener, logger: Logger): RequestListener {
  const observe = requestObserver(serviceLabel(logger));
  return (req, res) => {
    const route = tracingActive() ? undefined : routes.find((candidate) => takes(req, candidate));
    if (!route) return void api(req, res);
    const started = performance.now();
    const requestId = requestIdOf(req);
    const positions = new Map<string, number>();
    const answered = (status: number) => observe('POST', route.path, status, started);
    void inRequestScope(requestId, () =>
      collectingPositions(positions, async () => {
        try {
          const body = parseJsonBody(await readBody(req));
          const data = await route.answer({ headers: req.headers, body });
          if (res.destroyed) return;
          writeJson(res, 200, data, positions);
          answered(200);
        } catch (error) {
          if (res.destroyed || res.headersSent) return void res.destroy();
          const apiError = apiErrorOf(error, logger, { requestId, path: route.path });
          const retryAfter = apiError.details?.['retryAfterSeconds'];
          writeJson(res, apiError.status, apiError.toBody(), positions, typeof retryAfter === 'number' ? retryAfter : undefined);
          answered(apiError.status);
        }
      }),
    );
  };
}
