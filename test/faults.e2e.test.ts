import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startExtraGateway } from '@chat/devstack';
import { describe, expect, inject, it } from 'vitest';
import { eventually, managementHeaders } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';

/** A loopback port nothing listens on: a Redis that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Creates an app through the gateway's management API and a user with its full-access key: a chat call end to end. */
async function createAppAndUser(gatewayUrl: string, appName: string, uid: string): Promise<{ appId: string; apiKey: string }> {
  const created = await checkedFetch(`${gatewayUrl}/apps`, {
    method: 'POST',
    headers: { ...managementHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify({ name: appName, region: 'us' }),
  });
  expect(created.status).toBe(200);
  const app = (await created.json()) as { data: { id: string; apiKeys: Record<string, { apiKey: string; scope: string }> } };
  const apiKey = Object.values(app.data.apiKeys).find((k) => k.scope === 'fullAccess')!.apiKey;
  const user = await checkedFetch(`${gatewayUrl}/v3/users`, {
    method: 'POST',
    headers: { appid: app.data.id, apikey: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ uid, name: uid }),
  });
  expect(user.status).toBe(200);
  return { appId: app.data.id, apiKey };
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
      // The key is checked against the management service (no cache in Redis), and the call goes through.
      const { appId, apiKey: key } = await createAppAndUser(gateway.url, 'no redis', 'alone');
      const listed = await checkedFetch(`${gateway.url}/v3/users/alone`, { headers: { appid: appId, apikey: key } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { data: { uid: string } }).data.uid).toBe('alone');
    } finally {
      await gateway.stop();
    }
  }, 60_000);

  it('management without Redis is ready (degraded), and chat calls through a gateway that looks keys up in it succeed', async () => {
    const port = await closedPort();
    const management = spawn(process.execPath, [fileURLToPath(new URL('../services/management/dist/main.js', import.meta.url))], {
      env: {
        PATH: process.env['PATH'],
        PORT: String(port),
        MONGO_URL: inject('mongoUrl'),
        MONGO_DB: `no_redis_${Date.now().toString(36)}`,
        KAFKA_BROKERS: inject('kafkaBrokers'),
        REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
        WEBHOOK_SECRETS_KEY: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'error',
      },
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}`;
    let gateway: { url: string; stop(): Promise<void> } | undefined;
    try {
      const ready = await eventually(
        () => fetch(`${url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; checks: Record<string, string>; degraded?: string[] } }), () => null),
        (r) => r?.status === 200,
        60_000,
      );
      // Before ADR 0040 this was 503 (unready for want of Redis), which empties a Kubernetes Service.
      expect(ready?.body).toMatchObject({ status: 'degraded', checks: { store: 'ok', redis: 'failing' }, degraded: ['redis'] });

      gateway = await startExtraGateway({
        serviceUrls: { ...inject('serviceUrls'), management: url },
        redisUrl: inject('redisUrl'),
        managementKey: inject('managementKey'),
        managementSecret: inject('managementSecret'),
        env: { LOG_LEVEL: 'error' },
      });
      await createAppAndUser(gateway.url, 'management without redis', 'no-redis');
    } finally {
      await gateway?.stop();
      management.kill('SIGTERM');
      if (management.exitCode === null) await once(management, 'exit');
    }
  }, 120_000);
});
