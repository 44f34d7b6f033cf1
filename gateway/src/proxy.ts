import { Agent, request } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { errorStatus } from '@chat/contracts';
import type { ErrorBody, ErrorCode } from '@chat/contracts';
import type { Upstream } from './config.js';

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
}

/**
 * Streams a request to an upstream and its answer back, with no buffering and no framework in
 * between (ADR 0003). Sockets are reused through one keep-alive agent: opening a connection per
 * request costs more than everything else the gateway does.
 */
export class UpstreamProxy {
  private readonly agent: Agent;
  /** The agent's pool name per upstream (`host:port:`), to read its queue without building it per request. */
  private readonly poolNames = new Map<Upstream, string>();

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

  forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream, headers: OutgoingHttpHeaders, requestId: string): void {
    if (this.waitingFor(upstream) >= this.options.maxWaiting) {
      req.resume();
      sendError(res, 'ERR_SERVICE_UNAVAILABLE', 'The service is at capacity; retry the request shortly.', requestId, 1);
      return;
    }
    const upstreamReq = request({
      agent: this.agent,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      // Socket inactivity: no response (or a stalled one) for this long ends the exchange.
      timeout: this.options.timeoutMs,
    });
    let timedOut = false;

    upstreamReq.on('timeout', () => {
      timedOut = true;
      upstreamReq.destroy();
    });

    upstreamReq.on('response', (upstreamRes) => {
      const responseHeaders = upstreamRes.headers;
      // Hop-by-hop: our connection with the client is managed by our server, not the upstream's.
      delete responseHeaders.connection;
      delete responseHeaders['keep-alive'];
      responseHeaders['x-request-id'] = requestId;
      res.writeHead(upstreamRes.statusCode ?? 502, responseHeaders);
      upstreamRes.pipe(res);
      // An upstream that dies mid-body must not leave the client waiting for the rest.
      upstreamRes.on('close', () => {
        if (!upstreamRes.complete) res.destroy();
      });
    });

    upstreamReq.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (res.destroyed) return; // the client left first; nobody to answer
      this.options.onUpstreamError(error, upstream, requestId);
      if (timedOut) {
        sendError(res, 'ERR_UPSTREAM_TIMEOUT', `The service did not answer within ${this.options.timeoutMs} ms.`, requestId);
      } else {
        sendError(res, 'ERR_UPSTREAM_UNAVAILABLE', 'The service that handles this operation is unavailable.', requestId);
      }
    });

    // A client that goes away frees the upstream socket at once instead of when the upstream answers.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });

    req.pipe(upstreamReq);
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
    this.agent.destroy();
  }
}
