import { createServer } from 'node:http';
import type { OutgoingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeCatalog } from '@chat/contracts';
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EdgeTracing } from './edgeTracing.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

/** A gateway's routing step in miniature: begin the span, match the route, build the forwarded headers. */
function edge(tracing: EdgeTracing): Server {
  return createServer((req, res) => {
    tracing.begin(req, res, '/v3/messages', 'req-7');
    tracing.routed(req, routeCatalog.find((route) => route.operationId === 'send-message')!);
    const forwarded: OutgoingHttpHeaders = {};
    tracing.inject(req, forwarded);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(forwarded));
  });
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the gateway’s trace context on forwarded requests', () => {
  const traced = edge(new EdgeTracing(true));
  const untraced = edge(new EdgeTracing(false));
  let tracedUrl: string;
  let untracedUrl: string;

  beforeAll(async () => {
    tracedUrl = await listening(traced);
    untracedUrl = await listening(untraced);
  });
  afterAll(async () => {
    await Promise.all([traced, untraced].map((server) => new Promise((resolve) => server.close(resolve))));
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  const forward = async (base: string, headers: Record<string, string> = {}) =>
    (await (await fetch(`${base}/v3/messages`, { method: 'POST', headers })).json()) as Record<string, string>;

  it('forwards the traceparent of the gateway’s own server span, the root of a new trace', async () => {
    const forwarded = await forward(tracedUrl);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the span ends when the response closes
    const [span] = exporter.getFinishedSpans();
    expect(span).toMatchObject({ kind: SpanKind.SERVER, name: 'POST /v3/messages' });
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.attributes).toMatchObject({ 'http.route': '/v3/messages', 'http.response.status_code': 200, 'chat.request_id': 'req-7' });
    expect(forwarded['traceparent']).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
  });

  it('links a client’s traceparent instead of continuing it, so a client cannot choose the trace or force sampling', async () => {
    const client = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8) };
    const forwarded = await forward(tracedUrl, { traceparent: `00-${client.traceId}-${client.spanId}-01` });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [span] = exporter.getFinishedSpans();
    expect(span!.spanContext().traceId).not.toBe(client.traceId);
    expect(span!.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId }))).toEqual([client]);
    expect(forwarded['traceparent']).toContain(span!.spanContext().traceId);
  });

  it('adds nothing and records nothing while tracing is off', async () => {
    expect(await forward(untracedUrl)).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
