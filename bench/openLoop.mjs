import http from 'node:http';
import { percentile } from './percentile.mjs';

/**
 * Open-loop latency at a fixed rate: requests start on schedule whether or not earlier ones have
 * finished (no coordinated omission), timed with sub-millisecond resolution.
 */
export async function latencyAtRate(url, { method, headers }, rate, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(url);
  const total = Math.round(rate * seconds);
  const latencies = [];
  let failures = 0;
  const started = performance.now();
  const one = (scheduledAt) =>
    new Promise((resolve) => {
      const request = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method, headers, agent },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode === 200) latencies.push(performance.now() - scheduledAt);
            else failures += 1;
            resolve();
          });
        },
      );
      request.on('error', () => {
        failures += 1;
        resolve();
      });
      request.end();
    });
  const inFlight = [];
  for (let i = 0; i < total; i++) {
    const scheduledAt = started + (i * 1000) / rate;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(one(scheduledAt));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, failures, latencies };
}
