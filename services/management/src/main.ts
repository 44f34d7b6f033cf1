import { runService } from '@chat/runtime';
import type { ServiceResources } from '@chat/runtime';
import { Redis } from 'ioredis';
import { loadConfig } from './config.js';
import { watchRedis } from './redisHealth.js';
import { createManagementService } from './service.js';

const config = loadConfig();

// Connects, and reconnects, in the background: management starts and serves key look-ups while Redis
// is away (ADR 0040); invalidations wait for it (the projection retries them as an outage).
const redisConnection: ServiceResources<{ redis: Redis; stopGauge: () => void }> = {
  open: ({ logger, probes }) => {
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
    redis.on('error', (error: unknown) => logger.warn({ err: error }, 'redis error'));
    return { redis, stopGauge: watchRedis(probes, redis) };
  },
  close: async ({ redis, stopGauge }) => {
    stopGauge();
    await redis.quit();
  },
};

await runService('management', config, (deps, { redis }) => createManagementService(config, { ...deps, redis }), redisConnection);
