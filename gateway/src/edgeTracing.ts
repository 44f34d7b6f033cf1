import type { RouteSpec } from '@chat/contracts';
import { endRequestSpan, injectSpan, startEdgeSpan, tracingActive } from '@chat/http';
import type { Span } from '@opentelemetry/api';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** A routed request's span and, once matched, its route pattern (the span's name). */
interface Traced {
  span: Span;
  route?: string;
}

/**
 * The gateway's spans (ADR 0032): one server span per request it routes, the root of the request's
 * trace, whose context the forwarded request carries in `traceparent`. While tracing is off each
 * request pays three tests of one boolean.
 */
export class EdgeTracing {
  private readonly spans = new WeakMap<IncomingMessage, Traced>();

  /** `enabled`: whether this process exports traces (main.ts starts tracing before the gateway is built). */
  constructor(private readonly enabled = tracingActive()) {}

  /** Starts the request's span (tracing on), ended when the response closes. */
  begin(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): void {
    if (!this.enabled) return;
    const traced: Traced = { span: startEdgeSpan(req, path, requestId) };
    this.spans.set(req, traced);
    res.once('close', () => endRequestSpan(traced.span, res, traced.route, req.method ?? 'GET'));
  }

  /** Names the span after the catalogue's route (`POST /v3/messages`), never the raw path. */
  routed(req: IncomingMessage, route: RouteSpec): void {
    if (!this.enabled) return;
    const traced = this.spans.get(req);
    if (traced) traced.route = `${route.api === 'chat' ? '/v3' : ''}${route.path}`;
  }

  /** Adds `traceparent` (the gateway span's context) to the headers forwarded to a service. */
  inject(req: IncomingMessage, headers: OutgoingHttpHeaders): void {
    if (!this.enabled) return;
    const traced = this.spans.get(req);
    if (traced) injectSpan(traced.span, headers);
  }
}
