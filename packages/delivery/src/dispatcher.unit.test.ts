import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { AttemptResult, QueuedDelivery } from './dispatcher.js';

const delivery = (webhookId: string, orderKey: string, n: number): QueuedDelivery => ({
  deliveryId: `${webhookId}-${orderKey}-${n}`,
  appId: 'a1',
  webhookId,
  orderKey,
  body: String(n),
  notBefore: 0,
});

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('dispatcher', () => {
  it('keeps each lane in order, retries included, while other lanes proceed', async () => {
    const seen: string[] = [];
    const failures = new Map([['w1-c1-1', 2]]);
    const dispatcher = new Dispatcher({
      concurrencyPerEndpoint: 4,
      onError: () => undefined,
      attempt: async (d): Promise<AttemptResult> => {
        seen.push(d.deliveryId);
        const left = failures.get(d.deliveryId) ?? 0;
        if (left > 0) {
          failures.set(d.deliveryId, left - 1);
          return { done: false, retryAt: Date.now() + 5 };
        }
        return { done: true };
      },
    });
    for (let n = 1; n <= 3; n++) {
      dispatcher.enqueue(delivery('w1', 'c1', n));
      dispatcher.enqueue(delivery('w1', 'c2', n));
    }
    dispatcher.start();
    while (dispatcher.size() > 0) await sleep(2);
    const lane = (key: string) => seen.filter((id) => id.includes(key));
    expect(lane('-c1-')).toEqual(['w1-c1-1', 'w1-c1-1', 'w1-c1-1', 'w1-c1-2', 'w1-c1-3']);
    expect(lane('-c2-')).toEqual(['w1-c2-1', 'w1-c2-2', 'w1-c2-3']);
    // c2 did not wait for c1's retries.
    expect(seen.indexOf('w1-c2-3')).toBeLessThan(seen.lastIndexOf('w1-c1-1'));
  });

  it('bounds attempts in flight per endpoint, and a stuck endpoint does not hold up another', async () => {
    const stuck = deferred();
    let inFlight = 0;
    let most = 0;
    const other: string[] = [];
    const dispatcher = new Dispatcher({
      concurrencyPerEndpoint: 2,
      onError: () => undefined,
      attempt: async (d): Promise<AttemptResult> => {
        if (d.webhookId === 'slow') {
          inFlight++;
          most = Math.max(most, inFlight);
          await stuck.promise;
          inFlight--;
        } else other.push(d.deliveryId);
        return { done: true };
      },
    });
    dispatcher.start();
    for (let n = 1; n <= 5; n++) dispatcher.enqueue(delivery('slow', `c${n}`, n));
    for (let n = 1; n <= 5; n++) dispatcher.enqueue(delivery('fast', `c${n}`, n));
    await sleep(20);
    expect(other).toHaveLength(5);
    expect(most).toBe(2);
    stuck.release();
    while (dispatcher.size() > 0) await sleep(2);
    expect(most).toBe(2);
  });

  it('queues a delivery once, and starts nothing before start()', async () => {
    const seen: string[] = [];
    const dispatcher = new Dispatcher({
      concurrencyPerEndpoint: 1,
      onError: () => undefined,
      attempt: async (d) => {
        seen.push(d.deliveryId);
        return { done: true };
      },
    });
    dispatcher.enqueue(delivery('w', 'c', 1));
    dispatcher.enqueue(delivery('w', 'c', 1));
    await sleep(5);
    expect(seen).toEqual([]);
    dispatcher.start();
    while (dispatcher.size() > 0) await sleep(2);
    expect(seen).toEqual(['w-c-1']);
  });

  it('an attempt that cannot be recorded is tried again later', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const dispatcher = new Dispatcher({
      concurrencyPerEndpoint: 1,
      errorRetryMs: 5,
      onError: (error) => errors.push(error),
      attempt: async () => {
        calls++;
        if (calls === 1) throw new Error('store down');
        return { done: true };
      },
    });
    dispatcher.start();
    dispatcher.enqueue(delivery('w', 'c', 1));
    while (dispatcher.size() > 0) await sleep(2);
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
