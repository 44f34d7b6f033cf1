import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

/** A server whose handler holds every request until released, behind the given limits. */
async function heldServer(admission: Admission) {
  const held: ServerResponse[] = [];
  const server = createServer(
    admission.wrap((req, res) => {
      if (req.url === '/health') return void res.end('ok');
      held.push(res);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    held,
    releaseAll: () => held.splice(0).forEach((res) => res.end('done')),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('Admission', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('refuses at once with 503, Retry-After and the CometChat error shape when the line is full', async () => {
    const admission = new Admission({ maxInFlight: 2, minInFlight: 2, targetLatencyMs: 60_000, maxQueued: 1, maxQueueWaitMs: 10_000 });
    const server = await heldServer(admission);
    cleanups.push(server.close);
    const admitted = [fetch(server.url), fetch(server.url)];
    await until(() => server.held.length === 2);
    const queued = fetch(server.url);
    await until(() => admission.active === 2 && admission.refused === 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await fetch(server.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { code: 'ERR_SERVICE_UNAVAILABLE' } });
    // The health probe is never held in line.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    server.releaseAll();
    await until(() => server.held.length === 1);
    server.releaseAll();
    const answers = await Promise.all([...admitted, queued]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(admission.refused).toBe(1);
  });

  it('refuses a request that waited longer than the queue allows, without running it', async () => {
    const admission = new Admission({ maxInFlight: 1, minInFlight: 1, targetLatencyMs: 60_000, maxQueued: 10, maxQueueWaitMs: 50 });
    const server = await heldServer(admission);
    cleanups.push(server.close);
    const first = fetch(server.url);
    await until(() => server.held.length === 1);
    const waited = await fetch(server.url);
    expect(waited.status).toBe(503);
    expect(server.held).toHaveLength(1);
    server.releaseAll();
    expect((await first).status).toBe(200);
    // Capacity is back: the next request runs.
    const next = fetch(server.url);
    await until(() => server.held.length === 1);
    server.releaseAll();
    expect((await next).status).toBe(200);
    expect(admission.active).toBe(0);
  });

  it('shrinks its limit while requests are slow and grows it back while they are quick', async () => {
    let clock = 0;
    const admission = new Admission({ maxInFlight: 20, minInFlight: 2, targetLatencyMs: 100, maxQueued: 100, maxQueueWaitMs: 10_000 }, () => clock);
    const server = await heldServer(admission);
    cleanups.push(server.close);
    const slowRounds = async (rounds: number, took: number) => {
      for (let round = 0; round < rounds; round++) {
        const answered = fetch(server.url);
        await until(() => server.held.length === 1);
        clock += took;
        server.releaseAll();
        await answered;
        clock += 100; // past the interval between two decreases
      }
    };
    await slowRounds(30, 500);
    expect(admission.limit).toBe(2);
    // Quick answers at a full limit: the limit grows again.
    for (let round = 0; round < 20; round++) {
      const answers = [fetch(server.url), fetch(server.url)];
      await until(() => server.held.length === 2);
      clock += 10;
      server.releaseAll();
      await Promise.all(answers);
    }
    expect(admission.limit).toBeGreaterThan(2);
  });

  it('refuses at once a request the line would not reach within the wait allowed, at the recent pace', async () => {
    let clock = 0;
    const admission = new Admission({ maxInFlight: 1, minInFlight: 1, targetLatencyMs: 60_000, maxQueued: 100, maxQueueWaitMs: 1_000 }, () => clock);
    const server = await heldServer(admission);
    cleanups.push(server.close);
    // Two answers in one second: the pace is 2 a second.
    for (let round = 0; round < 2; round++) {
      const answered = fetch(server.url);
      await until(() => server.held.length === 1);
      clock += 500;
      server.releaseAll();
      expect((await answered).status).toBe(200);
    }
    const busy = fetch(server.url);
    await until(() => server.held.length === 1);
    // Places 1 and 2 in line are reached within 1 s at that pace; the third would wait 1.5 s.
    const queued = [fetch(server.url), fetch(server.url)];
    await until(() => admission.waiting === 2);
    const refused = await fetch(server.url);
    expect(refused.status).toBe(503);
    server.releaseAll();
    await until(() => server.held.length === 1);
    server.releaseAll();
    await until(() => server.held.length === 1);
    server.releaseAll();
    expect((await Promise.all([busy, ...queued])).map((res) => res.status)).toEqual([200, 200, 200]);
  });
});
