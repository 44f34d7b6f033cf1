import { runService } from '@chat/runtime';
import type { ServiceResources } from '@chat/runtime';
import { Redis } from 'ioredis';
import { redisPresence } from './adapters/presence.js';
import { loadConfig } from './config.js';
import { createUsersService } from './service.js';

const config = loadConfig();

// Presence only (ADR 0077): no offline queue, so a Redis that is away answers at once and the user
// shows its stored status.
const redisConnection: ServiceResources<{ redis: Redis }> = {
  open: ({ logger }) => {
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', (error: unknown) => logger.debug({ err: error }, 'redis error'));
    return { redis };
  },
  close: async ({ redis }) => {
    await redis.quit();
  },
};

await runService('users', config, (deps, { redis }) => createUsersService({ ...deps, presence: redisPresence(redis, deps.logger) }), redisConnection);
