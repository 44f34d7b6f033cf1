import { describe, expect, it } from 'vitest';
import { FailureBudget } from './failureBudget.js';

function setup(options: { burst: number; perMinute: number; capacity?: number }) {
  let now = 1_000_000;
  const budget = new FailureBudget({ capacity: 100, ...options, now: () => now });
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('FailureBudget', () => {
  it('lets a source fail `burst` times, then refuses it until a failure is earned back', () => {
    const { budget, advance } = setup({ burst: 3, perMinute: 6 });
    for (let i = 0; i < 3; i++) {
      expect(budget.retryAfter('203.0.113.9')).toBe(0);
      budget.fail('203.0.113.9');
    }
    // Six per minute: one every 10 s.
    expect(budget.retryAfter('203.0.113.9')).toBe(10);
    advance(9_000);
    expect(budget.retryAfter('203.0.113.9')).toBe(1);
    advance(1_000);
    expect(budget.retryAfter('203.0.113.9')).toBe(0);
    budget.fail('203.0.113.9');
    expect(budget.retryAfter('203.0.113.9')).toBe(10);
  });

  it('counts each source on its own: the guesser pays, its neighbour does not', () => {
    const { budget } = setup({ burst: 2, perMinute: 60 });
    for (let i = 0; i < 50; i++) budget.fail('198.51.100.1');
    expect(budget.retryAfter('198.51.100.1')).toBeGreaterThan(0);
    expect(budget.retryAfter('198.51.100.2')).toBe(0);
    budget.fail('198.51.100.2');
    expect(budget.retryAfter('198.51.100.2')).toBe(0);
  });

  it('refills no further than the burst, and failing while refused does not dig deeper than empty', () => {
    const { budget, advance } = setup({ burst: 2, perMinute: 60 });
    for (let i = 0; i < 100; i++) budget.fail('s');
    advance(1_000);
    expect(budget.retryAfter('s')).toBe(0);
    advance(3_600_000);
    budget.fail('s');
    budget.fail('s');
    expect(budget.retryAfter('s')).toBe(1);
  });

  it('take holds a failure while an attempt is checked: n attempts in flight never exceed the tokens; refund gives it back', () => {
    const { budget } = setup({ burst: 3, perMinute: 6 });
    expect([budget.take('s'), budget.take('s'), budget.take('s')]).toEqual([0, 0, 0]);
    // A fourth concurrent attempt is refused before any of the three has answered.
    expect(budget.take('s')).toBe(10);
    budget.refund('s');
    expect(budget.take('s')).toBe(0);
    expect(budget.take('s')).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) budget.refund('s');
    expect([budget.take('s'), budget.take('s'), budget.take('s'), budget.take('s')]).toEqual([0, 0, 0, 10]);
  });

  it('remembers a bounded number of sources', () => {
    const { budget } = setup({ burst: 1, perMinute: 1, capacity: 10 });
    for (let i = 0; i < 11; i++) budget.fail(`10.0.0.${i}`);
    expect(budget.retryAfter('10.0.0.0')).toBe(0);
    expect(budget.retryAfter('10.0.0.10')).toBe(60);
  });
});
