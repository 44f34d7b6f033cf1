import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, collectDefaultMetrics, register } from 'prom-client';
import type { LabelValues } from 'prom-client';

/**
 * Prometheus metrics of this process. One registry per process (prom-client's default), so every
 * module adds its metrics where it lives and `/metrics` serves them all. Tests run several services
 * in one process, so a metric is created once and shared, and per-instance values come from sources
 * that each instance adds and removes.
 */
export const metricsRegistry = register;

/**
 * `METRICS=off` (or `false`, `0`) leaves out what metrics cost per request and per process: the
 * request histogram, the process collectors (event-loop delay sampling) and `/metrics` itself. Meant
 * for measuring that cost, and for deployments that scrape nothing. Counters the runtime keeps in
 * memory (conflicts, batch sizes) still count: they cost an increment and are read only by a scrape.
 */
export function metricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env['METRICS']?.trim().toLowerCase();
  return !(setting === 'off' || setting === 'false' || setting === '0');
}

/**
 * How often the event-loop delay is sampled (ms). prom-client's 10 ms is a timer waking each process
 * 100 times a second, about 3.5 ms of CPU a second per idle process on the bench machine; at 100 ms it
 * is lost in the noise (ADR 0047). A stall long enough to matter still lands in the histogram.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

let defaultsCollected = false;
/** CPU, memory, event-loop delay and GC of the process; once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected || !metricsEnabled()) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  const existing = register.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [register] });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L> {
  const existing = register.getSingleMetric(name);
  if (existing) return existing as Histogram<L>;
  return new Histogram({ name, help, labelNames, buckets: [...buckets], registers: [register] });
}

export interface Sample<L extends string> {
  labels: LabelValues<L>;
  value: number;
}
export type SampleSource<L extends string> = () => readonly Sample<L>[] | Promise<readonly Sample<L>[]>;

const gaugeSources = new Map<string, Set<SampleSource<string>>>();

/**
 * A gauge read at scrape time from every registered source (a backlog, a lag): nothing is counted
 * on the request path. Returns the function that removes the source (on stop).
 */
export function sampledGauge<L extends string>(name: string, help: string, labelNames: readonly L[], source: SampleSource<L>): () => void {
  let sources = gaugeSources.get(name);
  if (!sources) {
    const all = new Set<SampleSource<string>>();
    sources = all;
    gaugeSources.set(name, all);
    new Gauge({
      name,
      help,
      labelNames,
      registers: [register],
      async collect() {
        this.reset();
        const sampled = await Promise.all([...all].map((read) => Promise.resolve().then(read).catch(() => [])));
        for (const samples of sampled) for (const { labels, value } of samples) this.set(labels, value);
      },
    });
  }
  const added = source as SampleSource<string>;
  sources.add(added);
  return () => void sources.delete(added);
}

const REQUEST_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Records one answered request: `route` is the pattern (`/v3/users/:uid`) or `unmatched`; a no-op with metrics off. */
export type RequestObserver = (method: string, route: string, status: number, startedMs: number) => void;

/** The request histogram's observer for `service` (shared by express's middleware and the routes answered before it). */
export function requestObserver(service: string): RequestObserver {
  if (!metricsEnabled()) return () => undefined;
  const seconds = histogram('http_request_duration_seconds', 'Time to answer an HTTP request, by route and status.', ['service', 'method', 'route', 'status'], REQUEST_SECONDS_BUCKETS);
  return (method, route, status, startedMs) => seconds.observe({ service, method, route, status: String(status) }, (performance.now() - startedMs) / 1_000);
}

/**
 * Requests per route and their latency (the histogram's `_count` is the request count). The route
 * label is the express pattern (`/v3/users/:uid`), never the raw path: ids would explode the series.
 */
export function requestMetrics(service: string): RequestHandler {
  if (!metricsEnabled()) return (_req, _res, next) => next();
  const observe = requestObserver(service);
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      // Routes here are declared with string paths; a matched request carries its pattern.
      const pattern = (req.route as { path?: unknown } | undefined)?.path;
      observe(req.method, typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched', res.statusCode, started);
    });
    next();
  };
}
