import { randomBytes } from 'node:crypto';
import { presenceKey, presenceOf, presenceReplicaField } from '@chat/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_CHUNK, RedisPresence } from './redisPresence.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

// The heartbeat renews this replica's field in every user's hash, a chunk of users per script call:
// every user of every chunk, none of the hash's other fields touched.
describe('RedisPresence on Redis', () => {
  const appId = `presence-int-${randomBytes(4).toString('hex')}`;
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    const keys = await redis.keys(`presence:${appId}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('refreshes every vouched user across chunks and leaves other replicas\' fields and lastActiveAt alone', async () => {
    const users = Array.from({ length: REFRESH_CHUNK * 2 + 7 }, (_, i) => ({ appId, uid: `u${i}` }));
    const mine = new RedisPresence(redis, 'mine');
    const now = Date.now();
    await mine.online(appId, 'u0', now + 1_000, now);
    await redis.hset(presenceKey(appId, 'u1'), presenceReplicaField('other'), String(now - 1), 'lastActiveAt', '12');

    await mine.refresh(users, now + 10_000);

    const fields = await Promise.all(users.map(({ uid }) => redis.hget(presenceKey(appId, uid), presenceReplicaField('mine'))));
    expect(fields.filter((f) => f === String(now + 10_000))).toHaveLength(users.length);
    expect(await redis.hgetall(presenceKey(appId, 'u1'))).toEqual({ [presenceReplicaField('other')]: String(now - 1), lastActiveAt: '12', [presenceReplicaField('mine')]: String(now + 10_000) });
    // Vouched past the old expiry: online on any replica's reading, 5 s after it would have lapsed.
    expect(presenceOf(await redis.hgetall(presenceKey(appId, 'u0')), now + 5_000).status).toBe('online');
    await mine.refresh([], now);
  });
});
