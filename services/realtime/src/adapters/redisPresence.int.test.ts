import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
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
    const mine = new RedisPresence(redis, 'mine', 5_000);
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

describe('RedisPresence on a real Redis: a dead replica\'s users are swept', () => {
  let redis: Redis;
  beforeAll(() => {
    // A database of its own: the running realtime replicas (database 0) sweep too, and would take this test's dead replica first.
    redis = new Redis(redisUrl, { db: 7 });
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('takes a replica that stopped beating offline once, across two sweepers, and keeps users vouched elsewhere', async () => {
    const appId = `sweep${randomUUID().slice(0, 8)}`;
    const [dead, one, two] = ['dead', 'one', 'two'].map((name) => new RedisPresence(redis, `${name}-${randomUUID()}`, 300));
    const t0 = Date.now();
    expect(await dead!.beat(t0)).toBe(true);
    await Promise.all([one!.beat(t0), two!.beat(t0)]);
    const uids = Array.from({ length: 250 }, (_, i) => `u${i}`);
    expect(await Promise.all(uids.map((uid) => dead!.online(appId, uid, t0 + 60_000, t0)))).toEqual(uids.map(() => true));
    expect(await one!.online(appId, 'u7', t0 + 60_000, t0)).toBe(false);
    // Beating (a loaded machine may take longer than 300 ms for the above), it is not swept.
    await dead!.beat(t0);
    expect((await one!.sweep(Date.now())).filter((user) => user.appId === appId)).toEqual([]);

    await sleep(400);
    const now = Date.now();
    await Promise.all([one!.beat(now), two!.beat(now)]);
    const [a, b] = await Promise.all([one!.sweep(now), two!.sweep(now)]);
    const swept = [...a, ...b].filter((user) => user.appId === appId);
    expect(swept.map((user) => user.uid).sort()).toEqual(uids.filter((uid) => uid !== 'u7').sort());
    expect(new Set(swept.map((user) => user.lastActiveAt))).toEqual(new Set([Math.floor(t0 / 1_000)]));
    expect(presenceOf(await redis.hgetall(presenceKey(appId, 'u3')), now)).toEqual({ status: 'offline', lastActiveAt: Math.floor(t0 / 1_000) });
    expect(presenceOf(await redis.hgetall(presenceKey(appId, 'u7')), now).status).toBe('online');
    expect((await one!.sweep(Date.now())).filter((user) => user.appId === appId)).toEqual([]);

    // The dead replica was only stalled: its next beat tells it so.
    expect(await dead!.beat(Date.now())).toBe(true);
    expect(await dead!.beat(Date.now())).toBe(false);
  });
});
