import type { Redis } from 'ioredis';
import type { IdempotencyStore } from './idempotency.js';
import type { WindowCounterStore } from './rateLimit.js';

/** Rate-limit windows: one pipelined round trip adds every count and reads every total. */
export function redisWindowCounters(redis: Redis): WindowCounterStore {
  return {
    async add(entries, ttlSeconds) {
      const pipeline = redis.pipeline();
      for (const { key, amount } of entries) pipeline.incrby(key, amount).expire(key, ttlSeconds);
      const results = (await pipeline.exec()) ?? [];
      return entries.map((_, index) => {
        const [error, value] = results[index * 2] ?? [null, 0];
        if (error) throw error;
        return Number(value);
      });
    },
  };
}

/** Idempotency claims and answers: `SET NX` makes exactly one concurrent duplicate the first. */
export function redisIdempotencyStore(redis: Redis): IdempotencyStore {
  return {
    async claim(key, value, ttlSeconds) {
      return (await redis.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
    },
    read: (key) => redis.get(key),
    async save(key, value, ttlSeconds) {
      await redis.set(key, value, 'EX', ttlSeconds);
    },
    async release(key) {
      await redis.del(key);
    },
  };
}
