import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { INTERNAL_HEADER_PREFIX, internalHeaders } from '@chat/contracts';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the client's credentials never reach a service. */
const DROPPED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'apikey',
  'authtoken',
  'key',
  'secret',
  'onbehalfof',
  'appid',
  internalHeaders.requestId,
  // The gateway starts every trace (ADR 0032): a client's own context is a link on its span, never forwarded.
  'traceparent',
  'tracestate',
]);

/** A header's one value, trimmed; absent, repeated or blank is undefined. */
export function single(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** What the client sent that a service may see, and the request id. */
export function forwardedHeaders(req: IncomingMessage, requestId: string): OutgoingHttpHeaders {
  const source = req.headers;
  const connection = source.connection;
  // Headers the client declared hop-by-hop in Connection are not forwarded either.
  const listed = connection ? new Set(connection.toLowerCase().split(',').map((t) => t.trim())) : undefined;
  const out: OutgoingHttpHeaders = {};
  for (const name of Object.keys(source)) {
    if (DROPPED_HEADERS.has(name) || name.startsWith(INTERNAL_HEADER_PREFIX) || listed?.has(name)) continue;
    out[name] = source[name];
  }
  out[internalHeaders.requestId] = requestId;
  return out;
}
