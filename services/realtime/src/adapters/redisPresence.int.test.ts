import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { presenceKey, presenceOf } from '@chat/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPresence } from './redisPresence.js';

describe('RedisPresence on a real Redis: a dead replica\'s users are swept', () => {
  const url = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  let redis: Redis;
  beforeAll(() => {
    // A database of its own: the running realtime replicas (database 0) sweep too, and would take this test's dead replica first.
    redis = new Redis(url, { db: 7 });
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
