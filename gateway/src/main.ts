import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { collectProcessMetrics, createLogger, sampledGauge, startTracing } from '@chat/http';
import { createGateway } from './app.js';
import { loadConfig } from './config.js';
import { redisIdempotencyStore, redisWindowCounters } from './redisStores.js';

const config = loadConfig();
const logger = createLogger('gateway', config.logLevel);
// Off (nothing loaded) unless an OTLP endpoint is configured (ADR 0032).
const tracing = await startTracing('gateway', logger);

// Commands fail fast while Redis is away (the cache then falls through to the management service);
// the subscriber keeps its queue so it resubscribes by itself after a reconnect.
const redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 250 });
const subscriber = new Redis(config.redisUrl);
for (const [name, client] of [['redis', redis], ['redis subscriber', subscriber]] as const) {
  client.on('error', (error: unknown) => logger.warn({ err: error }, `${name} error`));
}
// Not `events.once`: it rejects on the first 'error' event, so a gateway started while Redis is down died
// of an uncaught ECONNREFUSED instead of serving from the management service.
await new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, 5_000);
  timer.unref();
  redis.once('ready', () => {
    clearTimeout(timer);
    resolve();
  });
});
if (redis.status !== 'ready') logger.warn('redis is not reachable yet; serving from the management service meanwhile');

// Generated at build time (npm run openapi) beside the code; a gateway without it still forwards.
const apiDescription = (() => {
  try {
    return readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
  } catch (error) {
    logger.warn({ err: error }, 'docs/openapi.json is missing: /openapi.json will answer 404');
    return undefined;
  }
})();
// The demo page's script, bundled at build time (gateway/demo/bundle.mjs, ADR 0080); without it /demo answers 404.
const demoScript = (() => {
  try {
    return readFileSync(new URL('./demo/app.js', import.meta.url), 'utf8');
  } catch {
    logger.warn('dist/demo/app.js is missing: /demo will answer 404');
    return undefined;
  }
})();
const gateway = createGateway(config, {
  apiDescription,
  demoScript,
  redis,
  subscriber,
  counters: redisWindowCounters(redis),
  idempotency: redisIdempotencyStore(redis),
  logger,
});
collectProcessMetrics();
// Not a readiness check: without Redis the gateway still serves (look-ups fall back to the management
// service, limits are counted locally), and taking every replica out of rotation would be worse.
const stopRedisGauge = sampledGauge('gateway_redis_connected', '1 while the gateway holds a Redis connection.', [], () => [
  { labels: {}, value: redis.status === 'ready' ? 1 : 0 },
]);
const port = await gateway.start();
const adminPort = (gateway.adminServer?.address() as AddressInfo | null | undefined)?.port;
logger.info({ port, adminPort, region: config.region, domain: config.domain }, 'gateway listening');

let stopping = false;
const shutdown = (signal: NodeJS.Signals) => {
  if (stopping) process.exit(1);
  stopping = true;
  logger.info(`received ${signal}, shutting down`);
  gateway
    .stop()
    .then(() => stopRedisGauge())
    .then(() => Promise.allSettled([redis.quit(), subscriber.quit()]))
    .then(() => tracing?.shutdown())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
