import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServiceApp } from './app.js';
import { createLogger } from './logger.js';
import { startTracing, tracingActive, tracingConfigured } from './tracing.js';
import type { Tracing } from './tracing.js';

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('whether tracing is on', () => {
  it('is configured by an OTLP endpoint, unless the SDK or the exporter is switched off', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('a traced service', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('tracetest', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const exports: Array<{ path: string; contentType: string; body: string }> = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const router = Router();
  router.post('/v3/work', async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.info('inside the use case');
    res.json({ data: {} });
  });
  const service = createServer(createServiceApp({ logger, routers: [router] }));
  let url = '';
  let tracing: Tracing | null = null;

  beforeAll(async () => {
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES']) vi.stubEnv(name, '');
    expect(await startTracing('tracetest', logger)).toBeNull();
    expect(tracingActive()).toBe(false);
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', await listening(collector));
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    tracing = await startTracing('tracetest', logger);
    url = await listening(service);
  });
  afterAll(async () => {
    await new Promise((resolve) => service.close(resolve));
    await tracing?.shutdown();
    await new Promise((resolve) => collector.close(resolve));
    vi.unstubAllEnvs();
  });

  it('continues the forwarded traceparent in its request span, names its log lines after it, and exports it as OTLP JSON', async () => {
    expect(tracingActive()).toBe(true);
    const traceId = 'ab'.repeat(16);
    const parentId = 'cd'.repeat(8);
    const response = await fetch(`${url}/v3/work`, { method: 'POST', headers: { traceparent: `00-${traceId}-${parentId}-01`, 'x-request-id': 'req-t' } });
    expect(response.status).toBe(200);
    const line = lines.find((l) => l['msg'] === 'inside the use case')!;
    expect(line).toMatchObject({ requestId: 'req-t', trace_id: traceId });
    expect(line['span_id']).toMatch(/^[0-9a-f]{16}$/);
    expect(line['span_id']).not.toBe(parentId);

    await tracing!.shutdown(); // flushes the batch
    const exported = exports.find((e) => e.path === '/v1/traces')!;
    expect(exported.contentType).toContain('application/json');
    const body = JSON.parse(exported.body) as { resourceSpans: Array<{ resource: { attributes: unknown[] }; scopeSpans: Array<{ spans: any[] }> }> };
    const [span] = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(span).toMatchObject({ traceId, parentSpanId: parentId, spanId: line['span_id'], name: 'POST /v3/work', kind: 2 });
    expect(body.resourceSpans[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'tracetest' } });
  });
});
