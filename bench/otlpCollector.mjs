// A stand-in for an OpenTelemetry collector: an OTLP/HTTP JSON receiver on a loopback port that hands
// each exported span to `onSpan(span, serviceName)` and answers 200, as a collector would. Used by the
// benchmarks that read the services' own spans (send-stages) or count what tracing exports (tracing-cost).
import { createServer } from 'node:http';

/** Starts the receiver; resolves to { endpoint, close() }. */
export async function startOtlpCollector(onSpan) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '?';
          for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) onSpan(span, service);
        }
      } catch {
        // not JSON (another exporter's protobuf): nothing to record
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
