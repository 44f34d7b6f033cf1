import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startExtraGateway } from '@chat/devstack';
import { describe, expect, inject, it } from 'vitest';
import { managementHeaders } from './support/api.js';

/** A loopback port nothing listens on: a Redis that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// Faults of issue 14 that need the real processes. The others are unit-tested where they live
// (consumer supervision, the outbox across replicas, timeline sealing) and exercised together by
// `npm run chaos`.
describe('outages', () => {
  it('a gateway started while Redis is down starts, serves management and chat calls, and never answers 500', async () => {
    const gateway = await startExtraGateway({
      serviceUrls: inject('serviceUrls'),
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      managementKey: inject('managementKey'),
      managementSecret: inject('managementSecret'),
      env: { LOG_LEVEL: 'error' },
    });
    try {
      const created = await fetch(`${gateway.url}/apps`, {
        method: 'POST',
        headers: { ...managementHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'no redis', region: 'us' }),
      });
      expect(created.status).toBe(200);
      const app = (await created.json()) as { data: { id: string; apiKeys: Record<string, { apiKey: string; scope: string }> } };
      const key = Object.values(app.data.apiKeys).find((k) => k.scope === 'fullAccess')!.apiKey;
      // The key is checked against the management service (no cache in Redis), and the call goes through.
      const user = await fetch(`${gateway.url}/v3/users`, {
        method: 'POST',
        headers: { appid: app.data.id, apikey: key, 'content-type': 'application/json' },
        body: JSON.stringify({ uid: 'alone', name: 'Alone' }),
      });
      expect(user.status).toBe(200);
      const listed = await fetch(`${gateway.url}/v3/users/alone`, { headers: { appid: app.data.id, apikey: key } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { data: { uid: string } }).data.uid).toBe('alone');
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});
