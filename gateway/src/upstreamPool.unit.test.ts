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
    const pool = new UpstreamPool([a, b], 500, () => now);
    pool.markFailed(b);
    expect(Array.from({ length: 4 }, () => pool.pick().port)).toEqual([4001, 4001, 4001, 4001]);
    now += 501;
    expect(new Set(Array.from({ length: 4 }, () => pool.pick().port))).toEqual(new Set([4001, 4002]));
  });

  it('still answers when every replica sits out (the request then fails fast or finds one back)', () => {
    const pool = new UpstreamPool([a, b], 10_000, () => 0);
    pool.markFailed(a);
    pool.markFailed(b);
    expect([a, b]).toContain(pool.pick());
  });

  it('ignores failures of an upstream it does not hold and of a lone replica', () => {
    const lone = new UpstreamPool([a], 10_000, () => 0);
    lone.markFailed(a);
    expect(lone.pick()).toBe(a);
    const pool = new UpstreamPool([a, b], 10_000, () => 0);
    pool.markFailed(c);
    expect([pool.pick(), pool.pick()]).toEqual([a, b]);
  });
});
