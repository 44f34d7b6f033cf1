import { request } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { APP_ID_PATTERN, errorStatus, internalHeaders } from '@chat/contracts';
import type { AuthTokenOwner, ErrorCode } from '@chat/contracts';
import type { Logger } from 'pino';
import type { Upstream } from './config.js';
import { forwardedHeaders } from './forwardedHeaders.js';
import { sendError } from './proxy.js';
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
      const upstream = this.pool.pick(admission.appId, admission.owner.uid);
      const upstreamReq = request({ hostname: upstream.hostname, port: upstream.port, method: 'GET', path: admission.forwardedUrl, headers: this.headers(req, requestId, admission) });
      upstreamReq.on('response', (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, { ...upstreamRes.headers, 'x-request-id': requestId });
        res.flushHeaders();
        upstreamRes.pipe(res);
        upstreamRes.on('close', () => res.end());
      });
      upstreamReq.on('error', (error) => {
        this.pool.markFailed(upstream);
        this.options.logger.warn({ err: error, requestId }, 'realtime service unreachable');
        if (!res.headersSent) sendError(res, 'ERR_UPSTREAM_UNAVAILABLE', 'The realtime service is unavailable.', requestId);
        else res.destroy();
      });
      res.on('close', () => upstreamReq.destroy());
      upstreamReq.end();
    });
  }

  /** A WebSocket upgrade: refused on the socket as a plain HTTP answer, else spliced to the replica. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): void {
    const path = pathOf(req);
    socket.on('error', () => socket.destroy());
    if (!this.handles(path) || path !== REALTIME_SOCKET_PATH || req.method !== 'GET') return refuseOnSocket(socket, 'ERR_API_NOT_FOUND', `No operation ${req.method ?? ''} ${path}.`, requestId);
    void this.admit(req, path).then((admission) => {
      if (socket.destroyed) return;
      if (admission.kind === 'refuse') return refuseOnSocket(socket, admission.code, admission.message, requestId);
      const upstream = this.pool.pick(admission.appId, admission.owner.uid);
      const headers = { ...this.headers(req, requestId, admission), connection: 'Upgrade', upgrade: 'websocket' };
      const upstreamReq = request({ hostname: upstream.hostname, port: upstream.port, method: 'GET', path: admission.forwardedUrl, headers });
      upstreamReq.on('upgrade', (upstreamRes, upstreamSocket, upstreamHead) => {
        const lines = [`HTTP/1.1 101 Switching Protocols`];
        for (let i = 0; i < upstreamRes.rawHeaders.length; i += 2) lines.push(`${upstreamRes.rawHeaders[i]}: ${upstreamRes.rawHeaders[i + 1]}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (upstreamHead.length > 0) socket.write(upstreamHead);
        if (head.length > 0) upstreamSocket.write(head);
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        upstreamSocket.on('error', () => socket.destroy());
        upstreamSocket.on('close', () => socket.destroy());
        socket.on('close', () => upstreamSocket.destroy());
        upstreamSocket.pipe(socket);
        socket.pipe(upstreamSocket);
      });
      // The replica refused the upgrade (it answers in CometChat's shape): relayed as it is.
      upstreamReq.on('response', (upstreamRes) => {
        const chunks: Buffer[] = [];
        upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamRes.on('end', () => {
          const body = Buffer.concat(chunks);
          socket.end(`HTTP/1.1 ${upstreamRes.statusCode ?? 502} Refused\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body.toString('utf8')}`);
        });
      });
      upstreamReq.on('error', (error) => {
        this.pool.markFailed(upstream);
        this.options.logger.warn({ err: error, requestId }, 'realtime service unreachable');
        refuseOnSocket(socket, 'ERR_UPSTREAM_UNAVAILABLE', 'The realtime service is unavailable.', requestId);
      });
      upstreamReq.end();
    });
  }

  /** Ends every spliced socket (shutdown): the server's close does not track upgraded connections. */
  close(): void {
    for (const socket of this.sockets) socket.destroy();
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
