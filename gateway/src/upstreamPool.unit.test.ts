import { describe, expect, it } from 'vitest';
import { UpstreamPool } from './upstreamPool.js';

const a = { hostname: '127.0.0.1', port: 4001 };
const b = { hostname: '127.0.0.1', port: 4002 };
const c = { hostname: '127.0.0.1', port: 4003 };

describe('UpstreamPool', () => {
  it('spreads requests over every replica in turn', () => {
    const pool = new UpstreamPool([a, b, c]);
    expect(Array.from({ length: 6 }, () => pool.pick().port)).toEqual([4001, 4002, 4003, 4001, 4002, 4003]);
  });

  it('passes over a replica that failed until its sit-out ends, then uses it again', () => {
    let now = 1_000;
    const pool = new UpstreamPool([a, b], { sitOutMs: 500, now: () => now });
    pool.markFailed(b);
    expect(Array.from({ length: 4 }, () => pool.pick().port)).toEqual([4001, 4001, 4001, 4001]);
    now += 501;
    expect(new Set(Array.from({ length: 4 }, () => pool.pick().port))).toEqual(new Set([4001, 4002]));
  });

  it('still answers when every replica sits out (the request then fails fast or finds one back)', () => {
    const pool = new UpstreamPool([a, b], { sitOutMs: 10_000, now: () => 0 });
    pool.markFailed(a);
    pool.markFailed(b);
    expect([a, b]).toContain(pool.pick());
  });

  it('ignores failures of an upstream it does not hold and of a lone replica', () => {
    const lone = new UpstreamPool([a], { sitOutMs: 10_000, now: () => 0 });
    lone.markFailed(a);
    expect(lone.pick()).toBe(a);
    const pool = new UpstreamPool([a, b], { sitOutMs: 10_000, now: () => 0 });
    pool.markFailed(c);
    expect([pool.pick(), pool.pick()]).toEqual([a, b]);
  });

  it('sends one user’s requests to one replica, and many users’ to every replica', () => {
    const pool = new UpstreamPool([a, b]);
    for (const [appId, uid] of [['app1', 'ann'], ['app1', 'bob'], ['app2', 'ann']] as const) {
      const first = pool.pick(appId, uid);
      expect(Array.from({ length: 5 }, () => pool.pick(appId, uid))).toEqual(Array(5).fill(first));
    }
    const perReplica = new Map<number, number>();
    for (let i = 0; i < 1_000; i++) {
      const port = pool.pick('app1', `u${i}`).port;
      perReplica.set(port, (perReplica.get(port) ?? 0) + 1);
    }
    expect([...perReplica.keys()].sort()).toEqual([4001, 4002]);
    for (const count of perReplica.values()) expect(count).toBeGreaterThan(400);
  });

  it('sends a user to another replica while theirs sits out, and back once it returns', () => {
    let now = 1_000;
    const pool = new UpstreamPool([a, b], { sitOutMs: 500, now: () => now });
    const home = pool.pick('app1', 'ann');
    pool.markFailed(home);
    expect(Array.from({ length: 3 }, () => pool.pick('app1', 'ann'))).toEqual(Array(3).fill(home === a ? b : a));
    now += 501;
    expect(pool.pick('app1', 'ann')).toBe(home);
  });

  it('after a sit-out, sends nothing to a replica until a connection probe finds it back', async () => {
    let now = 1_000;
    const answers: Array<(connected: boolean) => void> = [];
    const probed: number[] = [];
    const probe = (upstream: { port: number }) =>
      new Promise<boolean>((resolve) => {
        probed.push(upstream.port);
        answers.push(resolve);
      });
    const pool = new UpstreamPool([a, b], { sitOutMs: 500, now: () => now, probe });
    pool.markFailed(b);
    now += 501;
    // The sit-out is over: the next picks ask the probe once and still pass b over while it asks.
    expect(Array.from({ length: 4 }, () => pool.pick().port)).toEqual([4001, 4001, 4001, 4001]);
    expect(probed).toEqual([4002]);
    answers.shift()!(false);
    await Promise.resolve();
    // Still refused: out for another sit-out, with no request and no probe meanwhile.
    expect(Array.from({ length: 4 }, () => pool.pick().port)).toEqual([4001, 4001, 4001, 4001]);
    expect(probed).toEqual([4002]);
    now += 501;
    pool.pick();
    expect(probed).toEqual([4002, 4002]);
    answers.shift()!(true);
    await Promise.resolve();
    expect(new Set(Array.from({ length: 4 }, () => pool.pick().port))).toEqual(new Set([4001, 4002]));
  });

  it('offers another serving replica for a request a replica refused, and none when there is no other', () => {
    const pool = new UpstreamPool([a, b, c], { sitOutMs: 500, now: () => 0 });
    const home = pool.pick('app1', 'ann');
    pool.markFailed(home);
    const other = pool.alternativeTo(home, 'app1', 'ann');
    expect(other).toBeDefined();
    expect(other).not.toBe(home);
    for (const replica of [a, b, c]) pool.markFailed(replica);
    expect(pool.alternativeTo(home, 'app1', 'ann')).toBeUndefined();
    expect(new UpstreamPool([a]).alternativeTo(a)).toBeUndefined();
  });
});
