import { runService } from '@chat/runtime';
import type { ServiceResources } from '@chat/runtime';
import { Redis } from 'ioredis';
import { loadConfig } from './config.js';
import { createRealtimeService } from './service.js';

const config = loadConfig();

// Typing and presence only (ADR 0077): messages flow without Redis, so it connects in the background.
const redisConnection: ServiceResources<{ redis: Redis }> = {
  open: ({ logger }) => {
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
    redis.on('error', (error: unknown) => logger.warn({ err: error }, 'redis error'));
    return { redis };
  },
  close: async ({ redis }) => {
    await redis.quit();
  },
};

await runService('realtime', config, (deps, { redis }) => createRealtimeService({ ...deps, redis, usersUrls: config.usersUrls }, config), redisConnection);
