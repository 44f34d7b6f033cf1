import { describe, expect, it } from 'vitest';
import { Probes } from './probes.js';

describe('Probes', () => {
  it('is ready only while every check passes, and names each check', async () => {
    const probes = new Probes();
    let storeUp = true;
    probes.add('store', () => Promise.resolve(storeUp));
    probes.add('producer', () => true);
    expect(await probes.readiness()).toEqual({ ready: true, checks: { store: 'ok', producer: 'ok' } });
    storeUp = false;
    expect(await probes.readiness()).toEqual({ ready: false, checks: { store: 'failing', producer: 'ok' } });
  });

  it('counts a check that throws as failing and one that hangs as timed out, without waiting for it', async () => {
    const probes = new Probes();
    probes.add('throws', () => {
      throw new Error('no connection');
    });
    probes.add('hangs', () => new Promise<boolean>(() => undefined));
    const started = performance.now();
    expect(await probes.readiness(50)).toEqual({ ready: false, checks: { throws: 'failing', hangs: 'timeout' } });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('stays ready when only a check that does not gate readiness fails, and names it as degraded', async () => {
    const probes = new Probes();
    let redisUp = true;
    let storeUp = true;
    probes.add('store', () => storeUp);
    probes.add('redis', () => redisUp, { gatesReadiness: false });
    expect(await probes.readiness()).toEqual({ ready: true, checks: { store: 'ok', redis: 'ok' } });
    redisUp = false;
    expect(await probes.readiness()).toEqual({ ready: true, checks: { store: 'ok', redis: 'failing' }, degraded: ['redis'] });
    storeUp = false;
    expect(await probes.readiness()).toEqual({ ready: false, checks: { store: 'failing', redis: 'failing' }, degraded: ['redis'] });
  });

  it('refuses a second check of the same name', () => {
    const probes = new Probes();
    probes.add('store', () => true);
    expect(() => probes.add('store', () => true)).toThrow('registered twice');
  });
});
