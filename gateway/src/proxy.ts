import { Agent, request } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Plugin, RequestHandler } from 'http-proxy-middleware';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { errorStatus } from '@chat/contracts';
import type { ErrorBody, ErrorCode } from '@chat/contracts';
import type { Upstream } from './config.js';

/** The http-proxy server inside a middleware, as its plugins receive it. */
export type ProxyServer = Parameters<Plugin<IncomingMessage, ServerResponse>>[0];

/** Answers in CometChat's error shape; every refusal the gateway makes goes through here. */
export function sendError(res: ServerResponse, code: ErrorCode, message: string, requestId: string, retryAfterSeconds?: number): void {
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  res.writeHead(errorStatus[code], {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...(retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {}),
  });
  res.end(body);
}

/**
 * The one way the gateway forwards to a service (ADR 0027): an http-proxy-middleware per upstream,
 * the request's path and headers as the gateway left them, and `observe` in place of the default
 * plugins (they log every request and answer errors in plain text). Without an `agent` every exchange
 * has a socket of its own (what an upgraded or streaming channel needs).
 */
export function upstreamMiddleware(upstream: Upstream, observe: (server: ProxyServer) => void, agent?: Agent): RequestHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    // An object, not a URL string: a string target is parsed again on every request.
    target: { protocol: 'http:', host: upstream.hostname, hostname: upstream.hostname, port: upstream.port, path: '' },
    ...(agent ? { agent } : {}),
    // The path goes on exactly as the gateway matched it (no url.parse normalisation in between).
    toProxy: true,
    xfwd: false,
    ejectPlugins: true,
    plugins: [observe],
  });
}

export interface BufferedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyOptions {
  timeoutMs: number;
  maxSockets: number;
  /**
   * Requests that may wait for a free socket to one upstream; past it the gateway answers 503 at once.
   * A saturated service sheds its own load, but only of what reaches it: without this bound the
   * excess would queue here, unbounded, until clients time out.
   */
  maxWaiting: number;
  onUpstreamError: (error: unknown, upstream: Upstream, requestId: string) => void;
  /**
   * Another replica for a request that `failed` refused before it could have acted on it (see
   * `retryable`), given the forwarded headers (the acting app and user); undefined: none, answer 502.
   */
  alternativeTo?: (failed: Upstream, headers: IncomingMessage['headers']) => Upstream | undefined;
}

/** Marks a socket that stayed idle past the timeout, so its error maps to 504 rather than 502. */
class UpstreamTimeout extends Error {
  override readonly name = 'UpstreamTimeout';
}

/** What a forwarded request carries to the proxy's event handlers. */
interface Exchange {
  upstream: Upstream;
  requestId: string;
  /** The client sent no body: the request can be sent again as it is (the body stream is spent). */
  bodiless: boolean;
  /** Sent to another replica already: a second refusal is answered. */
  retried: boolean;
}

/**
 * Whether a failed exchange can go to another replica unchanged: a refused connection never reached
 * the replica, so any bodiless request is safe to send again; a connection reset may come after the
 * replica read the request, so only reads are.
 */
function retryable(error: unknown, method: string | undefined): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED') return true;
  return code === 'ECONNRESET' && (method === 'GET' || method === 'HEAD');
}
const EXCHANGE = Symbol('gateway exchange');
type ProxiedRequest = IncomingMessage & { [EXCHANGE]?: Exchange };

/**
 * Streams a request to an upstream and its answer back through http-proxy-middleware (ADR 0027),
 * mounted on the gateway's own `node:http` handler: no framework runs on the proxied path. Sockets
 * are reused through one keep-alive agent shared by every upstream: opening a connection per request
 * costs more than everything else the gateway does.
 */
export class UpstreamProxy {
  private readonly agent: Agent;
  /** The agent's pool name per upstream (`host:port:`), to read its queue without building it per request. */
  private readonly poolNames = new Map<Upstream, string>();
  /** One middleware per upstream, its target fixed: http-proxy then parses no URL per request. */
  private readonly middlewares = new Map<Upstream, RequestHandler>();

  constructor(private readonly options: ProxyOptions) {
    // LIFO keeps the hottest sockets busy and lets the rest idle out instead of all going stale.
    this.agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets, scheduling: 'lifo' });
  }

  /** Requests waiting for a socket to this upstream. */
  waitingFor(upstream: Upstream): number {
    let name = this.poolNames.get(upstream);
    if (name === undefined) {
      name = this.agent.getName({ host: upstream.hostname, port: upstream.port });
      this.poolNames.set(upstream, name);
    }
    return this.agent.requests[name]?.length ?? 0;
  }

  /** Forwards with `headers` in place of the client's (the caller has already rewritten them). */
  forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream, headers: OutgoingHttpHeaders, requestId: string): void {
    if (this.waitingFor(upstream) >= this.options.maxWaiting) {
      req.resume();
      sendError(res, 'ERR_SERVICE_UNAVAILABLE', 'The service is at capacity; retry the request shortly.', requestId, 1);
      return;
    }
    const length = req.headers['content-length'];
    const bodiless = req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
    (req as ProxiedRequest)[EXCHANGE] = { upstream, requestId, bodiless, retried: false };
    // http-proxy copies req.headers into the upstream request: replacing them is the whole header rule.
    req.headers = headers as IncomingMessage['headers'];
    this.send(req, res, upstream);
  }

  private send(req: IncomingMessage, res: ServerResponse, upstream: Upstream): void {
    void this.middlewareFor(upstream)(req, res, (error?: unknown) => this.failed(error, req, res));
  }

  private middlewareFor(upstream: Upstream): RequestHandler {
    let middleware = this.middlewares.get(upstream);
    if (middleware === undefined) {
      middleware = upstreamMiddleware(upstream, (server) => this.observe(server), this.agent);
      this.middlewares.set(upstream, middleware);
    }
    return middleware;
  }

  /** The gateway's rules for one exchange: timeout, 502/504 in CometChat's shape, and abandoned ends. */
  private observe(server: ProxyServer): void {
    server.on('proxyReq', (proxyReq, req, res) => {
      // Client gone while the request waited for a socket: nobody is left to answer.
      if (res.destroyed) return void proxyReq.destroy();
      // Socket inactivity: no response (or a stalled one) for this long ends the exchange.
      proxyReq.setTimeout(this.options.timeoutMs, () => proxyReq.destroy(new UpstreamTimeout('upstream timeout')));
      // A client that goes away frees the upstream socket at once instead of when the upstream answers.
      res.on('close', () => {
        if (!res.writableFinished) proxyReq.destroy();
      });
    });
    server.on('proxyRes', (proxyRes, req, res) => {
      const headers = proxyRes.headers;
      // Hop-by-hop: our connection with the client is managed by our server, not the upstream's.
      delete headers['keep-alive'];
      headers.connection = res.shouldKeepAlive ? 'keep-alive' : 'close';
      const exchange = (req as ProxiedRequest)[EXCHANGE];
      if (exchange) headers['x-request-id'] = exchange.requestId;
      // An upstream that dies mid-body must not leave the client waiting for the rest.
      proxyRes.on('close', () => {
        if (!proxyRes.complete) res.destroy();
      });
    });
    server.on('error', (error, req, res) => this.failed(error, req, res as ServerResponse));
    // The client reset its connection: http-proxy has already released the upstream request.
    server.on('econnreset', () => undefined);
  }

  private failed(error: unknown, req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (res.destroyed) return; // the client left first; nobody to answer
    const exchange = (req as ProxiedRequest)[EXCHANGE];
    const requestId = exchange?.requestId ?? '';
    if (exchange) this.options.onUpstreamError(error, exchange.upstream, requestId);
    // A replica that is leaving or restarting: one more try elsewhere (the ended body stream pipes as empty).
    if (exchange && exchange.bodiless && !exchange.retried && retryable(error, req.method)) {
      const next = this.options.alternativeTo?.(exchange.upstream, req.headers);
      if (next) {
        exchange.upstream = next;
        exchange.retried = true;
        this.send(req, res, next);
        return;
      }
    }
    if (error instanceof UpstreamTimeout) {
      sendError(res, 'ERR_UPSTREAM_TIMEOUT', `The service did not answer within ${this.options.timeoutMs} ms.`, requestId);
    } else {
      sendError(res, 'ERR_UPSTREAM_UNAVAILABLE', 'The service that handles this operation is unavailable.', requestId);
    }
  }

  /**
   * The same exchange with both bodies buffered, for the few requests whose answer must be kept
   * (Idempotency-Key). Rejects on a connection error or timeout; the caller maps it.
   */
  forwardBuffered(req: IncomingMessage, upstream: Upstream, headers: OutgoingHttpHeaders, body: Buffer): Promise<BufferedResponse> {
    return new Promise((resolve, reject) => {
      const upstreamReq = request({
        agent: this.agent,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...headers, 'content-length': body.length },
        timeout: this.options.timeoutMs,
      });
      upstreamReq.on('timeout', () => upstreamReq.destroy(new Error('upstream timeout')));
      upstreamReq.on('error', reject);
      upstreamReq.on('response', (upstreamRes) => {
        const chunks: Buffer[] = [];
        upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
        upstreamRes.on('error', reject);
        upstreamRes.on('end', () => {
          const kept: Record<string, string> = {};
          for (const [name, value] of Object.entries(upstreamRes.headers)) if (typeof value === 'string') kept[name] = value;
          resolve({ status: upstreamRes.statusCode ?? 502, headers: kept, body: Buffer.concat(chunks) });
        });
      });
      upstreamReq.end(body);
    });
  }

  close(): void {
    this.middlewares.clear();
    this.agent.destroy();
  }
}
