import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Link, Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { requestIdOf } from './actor.js';

/**
 * OpenTelemetry traces of every process (ADR 0032), configured by the standard OTEL_* variables.
 * Off unless an OTLP endpoint is configured: then no SDK is even loaded, the API stays its no-op, and
 * the request path pays one boolean test.
 */

/** What `startTracing` needs to know and to say. */
export interface TracingLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** The running SDK: flush and stop it on shutdown. */
export interface Tracing {
  shutdown(): Promise<void>;
}

let running: Tracing | null = null;

/** Whether spans are recorded and exported in this process. */
export function tracingActive(): boolean {
  return running !== null;
}

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * Traces are exported when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or
 * OTEL_EXPORTER_OTLP_ENDPOINT) and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  const exporter = setting(env, 'OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && exporter !== 'otlp') return false;
  return setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined || setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined;
}

/**
 * Starts the SDK once per process when tracing is configured (else answers null and loads nothing):
 * a Node tracer provider (async-local context, W3C trace-context propagation), batched export over
 * OTLP/HTTP with JSON bodies, the sampler from OTEL_TRACES_SAMPLER (default parent-based always-on),
 * and `service.name` = `serviceName` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name one.
 */
export async function startTracing(serviceName: string, logger: TracingLogger): Promise<Tracing | null> {
  if (running) return running;
  // The SDK reads the process environment itself (exporter, sampler, resource): so does this.
  const env = process.env;
  if (!tracingConfigured(env)) return null;
  const protocol = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? setting(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json') {
    logger.warn({ protocol }, 'only the http/json OTLP protocol is built in; exporting http/json');
  }
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // The exporter and the batch processor read their own OTEL_EXPORTER_OTLP_* and OTEL_BSP_* settings.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  const started: Tracing = {
    async shutdown() {
      running = null;
      await provider.shutdown();
    },
  };
  running = started;
  logger.info({ service: serviceName }, 'exporting OpenTelemetry traces');
  return started;
}

const tracer = trace.getTracer('@chat/http');

function routeOf(req: IncomingMessage & { route?: { path?: unknown }; baseUrl?: string }): string | undefined {
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl ?? ''}${pattern}` : undefined;
}

/** Ends a request's span with its status (5xx is an error) and, when known, the route pattern. */
export function endRequestSpan(span: Span, res: ServerResponse, route: string | undefined, method: string): void {
  if (span.isRecording()) {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (route !== undefined) {
      span.setAttribute('http.route', route);
      span.updateName(`${method} ${route}`);
    }
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    // The client left before the answer was written.
    else if (!res.writableFinished) span.setAttribute('chat.aborted', true);
  }
  span.end();
}

/**
 * A service's server span per request, a child of the `traceparent` the gateway forwarded; the rest of
 * the request (use case, command runner) runs in its context. Nothing at all while tracing is off.
 */
export const traceRequests: RequestHandler = (req, res, next) => {
  if (!tracingActive()) return next();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const method = req.method;
  const span = tracer.startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': req.path, 'chat.request_id': requestIdOf(req) } },
    parent,
  );
  res.once('close', () => endRequestSpan(span, res, routeOf(req), method));
  context.with(trace.setSpan(parent, span), next);
};

/**
 * The gateway's span for a request it forwards: always the root of a new trace (the edge decides
 * sampling, a client cannot force it), linked to the context a client sent, if any.
 */
export function startEdgeSpan(req: IncomingMessage, path: string, requestId: string): Span {
  const client = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, req.headers));
  const links: Link[] = client ? [{ context: client }] : [];
  return tracer.startSpan(
    req.method ?? 'GET',
    {
      kind: SpanKind.SERVER,
      root: true,
      links,
      attributes: { 'http.request.method': req.method ?? 'GET', 'url.path': path, 'chat.request_id': requestId },
    },
    ROOT_CONTEXT,
  );
}

/** Puts a span's context into the headers of the request forwarded to a service (`traceparent`). */
export function injectSpan(span: Span, headers: OutgoingHttpHeaders): void {
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
}
