import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { counter, metricsEnabled, requestMetrics } from './metrics.js';
import { withOperations } from './operations.js';
import { Probes } from './probes.js';

const saved = process.env['METRICS'];
afterEach(() => {
  if (saved === undefined) delete process.env['METRICS'];
  else process.env['METRICS'] = saved;
});

async function get(path: string): Promise<{ status: number; body: string }> {
  const server = createServer(withOperations((_req, res) => res.writeHead(418).end(), new Probes()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: response.status, body: await response.text() };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the metrics switch', () => {
  it('is on unless METRICS says off, false or 0', () => {
    expect(metricsEnabled({})).toBe(true);
    expect(metricsEnabled({ METRICS: 'on' })).toBe(true);
    for (const off of ['off', 'OFF ', 'false', '0']) expect(metricsEnabled({ METRICS: off })).toBe(false);
  });

  it('off: /metrics answers 404 and the request histogram is not installed', async () => {
    process.env['METRICS'] = 'off';
    expect(await get('/metrics')).toMatchObject({ status: 404, body: expect.stringContaining('METRICS=off') });
    let passed = false;
    requestMetrics('test')({} as never, {} as never, () => {
      passed = true;
    });
    expect(passed).toBe(true);
  });

  it('on: /metrics serves the Prometheus text format', async () => {
    delete process.env['METRICS'];
    counter('metrics_switch_test_total', 'A counter for this test.', []).inc();
    const scraped = await get('/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('metrics_switch_test_total 1');
  });
});
