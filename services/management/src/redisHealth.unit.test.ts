import { Probes } from '@chat/http';
import { describe, expect, it } from 'vitest';
import { watchRedis } from './redisHealth.js';

describe('management readiness without Redis', () => {
  it('stays ready while Redis is away (reported as degraded), and follows its store', async () => {
    const probes = new Probes();
    const redis = { status: 'ready' };
    let storeUp = true;
    probes.add('store', () => storeUp);
    const stop = watchRedis(probes, redis);
    try {
      expect(await probes.readiness()).toEqual({ ready: true, checks: { store: 'ok', redis: 'ok' } });
      redis.status = 'reconnecting';
      expect(await probes.readiness()).toEqual({ ready: true, checks: { store: 'ok', redis: 'failing' }, degraded: ['redis'] });
      storeUp = false;
      expect((await probes.readiness()).ready).toBe(false);
    } finally {
      stop();
    }
  });
});
