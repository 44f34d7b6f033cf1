import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'http-proxy-middleware';
import { APP_ID_PATTERN, errorStatus, internalHeaders } from '@chat/contracts';
import type { AuthTokenOwner, ErrorCode } from '@chat/contracts';
import type { Logger } from 'pino';
import type { Upstream } from './config.js';
import { forwardedHeaders } from './forwardedHeaders.js';
import { sendError, upstreamMiddleware } from './proxy.js';
import type { ProxyServer } from './proxy.js';
import { parseHost } from './tenancy.js';
import { UpstreamPool, probeConnection } from './upstreamPool.js';

export const REALTIME_SOCKET_PATH = '/v3/realtime';
export const REALTIME_EVENTS_PATH = '/v3/realtime/events';

export interface RealtimeRoutesOptions {
  domain: string;
  region: string;
  upstreams: readonly Upstream[];
  /**
   * The token's owner (null: unknown, revoked or another app's), or the seconds the client's address
   * must wait: the same failure budget as every other credential (ADR 0040), so guesses on the
   * upgrade cost the users service no more than guesses on REST.
   */
  authenticate: (req: IncomingMessage, appId: string, token: string) => Promise<AuthTokenOwner | null | number>;
  logger: Logger;
}

/** What the proxy's events need to know of a forwarded request. */
const FORWARD = Symbol('realtime forward');
type ForwardedRequest = IncomingMessage & { [FORWARD]?: { upstream: Upstream; requestId: string } };

/** Who may connect, or why not: CometChat's error shape on the upgrade too (ADR 0069). */
type Admission = { kind: 'allow'; appId: string; owner: AuthTokenOwner; forwardedUrl: string } | { kind: 'refuse'; code: ErrorCode; message: string };

/** The path and query the service gets: `since` only; the token and the tenant never leave the gateway. */
function forwardedUrl(path: string, query: URLSearchParams): string {
  const since = query.get('since');
  return since !== null ? `${path}?since=${encodeURIComponent(since)}` : path;
}

/**
 * The realtime channel at the gateway (ADR 0069): `GET /v3/realtime` (WebSocket upgrade) and `GET
 * /v3/realtime/events` (SSE), tenant from the chat host or the `appId` query parameter (browsers set no
 * header on a WebSocket), user from the `authToken` query parameter, forwarded to the realtime replica
 * the user hashes to with the gateway's identity headers. The query string is never logged or traced:
 * nothing here logs a URL, and these paths bypass the access log and the edge span.
 */
export class RealtimeRoutes {
  private readonly pool: UpstreamPool;
  private readonly sockets = new Set<Duplex>();
  private readonly middlewares = new Map<Upstream, RequestHandler>();

  constructor(private readonly options: RealtimeRoutesOptions) {
    this.pool = new UpstreamPool(options.upstreams, { probe: probeConnection });
  }

  handles(path: string): boolean {
    return path === REALTIME_SOCKET_PATH || path === REALTIME_EVENTS_PATH;
  }

  /** SSE (or a plain GET of the socket path, which only an upgrade may use). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): void {
    if (req.method !== 'GET' || path !== REALTIME_EVENTS_PATH) return sendError(res, 'ERR_API_NOT_FOUND', `No operation ${req.method ?? ''} ${path}.`, requestId);
    void this.admit(req, path).then((admission) => {
      if (res.destroyed) return;
      if (admission.kind === 'refuse') return sendError(res, admission.code, admission.message, requestId);
      const upstream = this.prepare(req, requestId, admission);
      void this.middlewareFor(upstream)(req, res, (error?: unknown) => this.failed(error, req, res));
    });
  }

  /** A WebSocket upgrade: refused on the socket as a plain HTTP answer, else proxied to the replica. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): void {
    const path = pathOf(req);
    socket.on('error', () => socket.destroy());
    if (!this.handles(path) || path !== REALTIME_SOCKET_PATH || req.method !== 'GET') return refuseOnSocket(socket, 'ERR_API_NOT_FOUND', `No operation ${req.method ?? ''} ${path}.`, requestId);
    void this.admit(req, path).then((admission) => {
      if (socket.destroyed) return;
      if (admission.kind === 'refuse') return refuseOnSocket(socket, admission.code, admission.message, requestId);
      const upstream = this.prepare(req, requestId, admission);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      // A refusal by the replica (CometChat's shape) is relayed as it is by http-proxy; a 101 is piped both ways.
      this.middlewareFor(upstream).upgrade(req, socket as Socket, head);
    });
  }

  /** Ends every proxied socket (shutdown): the server's close does not track upgraded connections. */
  close(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * The replica this user hashes to, with the request rewritten to what it may see: the identity
   * headers in place of the client's credentials and only `since` in the query (http-proxy copies
   * `req.url` and `req.headers` into the upstream request).
   */
  private prepare(req: IncomingMessage, requestId: string, admission: Extract<Admission, { kind: 'allow' }>): Upstream {
    const upstream = this.pool.pick(admission.appId, admission.owner.uid);
    const headers = this.headers(req, requestId, admission);
    if (req.headers.upgrade !== undefined) Object.assign(headers, { connection: 'Upgrade', upgrade: 'websocket' });
    (req as ForwardedRequest)[FORWARD] = { upstream, requestId };
    req.url = admission.forwardedUrl;
    req.headers = headers as IncomingMessage['headers'];
    return upstream;
  }

  /**
   * One http-proxy-middleware per replica, as the gateway's REST forwarding (ADR 0027): no agent (an
   * upgraded or streaming socket is never returned to a pool), no proxy timeout (a channel lives as long
   * as its client), our plugin instead of the default logger (the query carried the token).
   */
  private middlewareFor(upstream: Upstream): RequestHandler {
    let middleware = this.middlewares.get(upstream);
    if (middleware === undefined) {
      middleware = upstreamMiddleware(upstream, (server) => this.observe(server));
      this.middlewares.set(upstream, middleware);
    }
    return middleware;
  }

  private observe(server: ProxyServer): void {
    server.on('proxyReq', (proxyReq, _req, res) => {
      // An SSE client that goes away ends its upstream stream at once.
      res.on('close', () => proxyReq.destroy());
    });
    server.on('proxyRes', (proxyRes, req, res) => {
      const forward = (req as ForwardedRequest)[FORWARD];
      if (forward) proxyRes.headers['x-request-id'] = forward.requestId;
      // http-proxy writes the head right after this event; sent at once, an SSE client knows it is
      // connected before the first frame.
      process.nextTick(() => {
        if (!res.destroyed && !res.writableEnded) res.flushHeaders();
      });
    });
    server.on('error', (error, req, target) => this.failed(error, req, target));
  }

  /** The replica is unreachable: marked so, and the client refused in CometChat's shape. */
  private failed(error: unknown, req: IncomingMessage, target: ServerResponse | Duplex): void {
    const forward = (req as ForwardedRequest)[FORWARD];
    if (forward) this.pool.markFailed(forward.upstream);
    this.options.logger.warn({ err: error, requestId: forward?.requestId }, 'realtime service unreachable');
    const requestId = forward?.requestId ?? '';
    if (!('writeHead' in target)) return refuseOnSocket(target, 'ERR_UPSTREAM_UNAVAILABLE', 'The realtime service is unavailable.', requestId);
    if (target.headersSent) target.destroy();
    else if (!target.destroyed) sendError(target, 'ERR_UPSTREAM_UNAVAILABLE', 'The realtime service is unavailable.', requestId);
  }

  private headers(req: IncomingMessage, requestId: string, admission: Extract<Admission, { kind: 'allow' }>): OutgoingHttpHeaders {
    const headers = forwardedHeaders(req, requestId);
    delete headers['authtoken'];
    delete headers['last-event-id'];
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId.length > 0) headers['last-event-id'] = lastEventId;
    headers[internalHeaders.appId] = admission.appId;
    headers[internalHeaders.onBehalfOf] = admission.owner.uid;
    headers[internalHeaders.authTokenId] = admission.owner.tokenId;
    return headers;
  }

  private async admit(req: IncomingMessage, path: string): Promise<Admission> {
    const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
    const tenancy = parseHost(req.headers.host, this.options.domain, this.options.region);
    if (tenancy.kind === 'foreign-region') return { kind: 'refuse', code: 'AUTH_ERR_INVALID_APPID', message: `This deployment serves region '${this.options.region}'; the host names region '${tenancy.region}'.` };
    if (tenancy.kind === 'management' || tenancy.kind === 'calls') return { kind: 'refuse', code: 'ERR_API_NOT_FOUND', message: `No operation GET ${path}.` };
    const appId = tenancy.kind === 'chat' ? tenancy.appId : (query.get('appId') ?? undefined);
    if (!appId) return { kind: 'refuse', code: 'AUTH_ERR_EMPTY_APPID', message: 'The appId query parameter is required.' };
    if (!APP_ID_PATTERN.test(appId)) return { kind: 'refuse', code: 'AUTH_ERR_INVALID_APPID', message: `The app ${appId} does not exist.` };
    const token = query.get('authToken');
    if (!token) return { kind: 'refuse', code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', message: 'The authToken query parameter is required.' };
    try {
      const owner = await this.options.authenticate(req, appId, token);
      if (typeof owner === 'number') return { kind: 'refuse', code: 'ERR_TOO_MANY_REQUESTS', message: `Too many failed authentications from this address; retry in ${owner} s.` };
      if (!owner) return { kind: 'refuse', code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', message: 'The auth token is unknown, revoked or not of this app.' };
      return { kind: 'allow', appId, owner, forwardedUrl: forwardedUrl(path, query) };
    } catch {
      return { kind: 'refuse', code: 'ERR_UPSTREAM_UNAVAILABLE', message: 'The auth token cannot be verified right now; retry shortly.' };
    }
  }
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function refuseOnSocket(socket: Duplex, code: ErrorCode, message: string, requestId: string): void {
  const body = JSON.stringify({ error: { code, message } });
  const status = errorStatus[code];
  socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`);
}
