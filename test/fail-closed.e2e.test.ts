import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startExtraGateway } from '@chat/devstack';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';
import { readBack } from './support/kafka.js';

/** Production defaults fail closed (ADR 0040): operators' surfaces, management credentials, request ids. */
let app: TestApp;

beforeAll(async () => {
  app = await createApp('fail closed');
});

/** A GET through the gateway with a Host header of our choosing (fetch cannot set one). */
function getWithHost(path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const gateway = new URL(inject('gatewayUrl'));
  return new Promise((resolve, reject) => {
    const req = request({ hostname: gateway.hostname, port: gateway.port, path, method: 'GET', headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('operators’ surfaces are not a tenant’s', () => {
  const operatorPaths = ['/metrics', '/readyz', '/console', '/docs', '/openapi.json'];

  it('a tenant host gets 404 for readiness, metrics, console and docs, and still answers liveness', async () => {
    for (const tenantHost of [`${app.appId}.api-us.chat.localhost`, `${app.appId}.call-us.chat.localhost:3000`]) {
      for (const path of operatorPaths) {
        const answer = await getWithHost(path, tenantHost);
        expect(answer.status, `${tenantHost}${path}`).toBe(404);
        expect(JSON.parse(answer.text).error.code).toBe('ERR_API_NOT_FOUND');
      }
      expect((await getWithHost('/healthz', tenantHost)).status).toBe(200);
    }
    for (const operatorHost of ['apimgmt.chat.localhost', '127.0.0.1']) {
      for (const path of operatorPaths) expect((await getWithHost(path, operatorHost)).status, `${operatorHost}${path}`).toBe(200);
    }
  });

  it('the console and the docs send a CSP with frame-ancestors none, nosniff, DENY and no referrer', async () => {
    for (const path of ['/console', '/docs']) {
      const page = await getWithHost(path, 'apimgmt.chat.localhost');
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("default-src 'none'");
      expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(policy).not.toContain('unsafe-inline');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('with GATEWAY_ADMIN_PORT, readiness and metrics move to the admin port; the API port answers liveness only', async () => {
    const adminPort = await freePort();
    const gateway = await startExtraGateway({
      serviceUrls: inject('serviceUrls'),
      redisUrl: inject('redisUrl'),
      managementKey: inject('managementKey'),
      managementSecret: inject('managementSecret'),
      env: { LOG_LEVEL: 'error', GATEWAY_ADMIN_PORT: String(adminPort) },
    });
    try {
      const admin = `http://127.0.0.1:${adminPort}`;
      const metrics = await fetch(`${admin}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('gateway_upstream_waiting');
      expect((await fetch(`${admin}/readyz`)).status).toBe(200);
      expect((await fetch(`${admin}/healthz`)).status).toBe(200);
      expect((await fetch(`${admin}/v3/users`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      // The API itself is unchanged on the API port.
      expect((await checkedFetch(`${gateway.url}/v3/users`, { headers: { appid: app.appId, apikey: app.fullAccessKey } })).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});

describe('management credentials', () => {
  /** Runs the gateway with these credentials; it must exit at once, naming the variable. */
  async function startRefused(key: string, secret: string): Promise<{ code: number | null; stderr: string }> {
    const urls = inject('serviceUrls');
    const child = spawn(process.execPath, [fileURLToPath(new URL('../gateway/dist/main.js', import.meta.url))], {
      env: {
        PATH: process.env['PATH'],
        GATEWAY_PORT: String(await freePort()),
        REDIS_URL: inject('redisUrl'),
        USERS_URL: urls.users,
        CONVERSATIONS_URL: urls.conversations,
        MESSAGES_URL: urls.messages,
        CALLS_URL: urls.calls,
        MANAGEMENT_URL: urls.management,
        WEBHOOKS_URL: urls.webhooks,
        NOTIFICATIONS_URL: urls.notifications,
        MANAGEMENT_KEY: key,
        MANAGEMENT_SECRET: secret,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    return { code, stderr };
  }

  it('the gateway refuses to start with the manifest’s placeholder or a short credential', async () => {
    const placeholder = await startRefused(inject('managementKey'), 'replace-me');
    expect(placeholder.code).not.toBe(0);
    expect(placeholder.stderr).toMatch(/MANAGEMENT_SECRET/);
    const short = await startRefused('0123456789abcdef', inject('managementSecret'));
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/MANAGEMENT_KEY: must be at least 32 characters/);
  }, 40_000);
});

describe('x-request-id', () => {
  const createUser = (uid: string, requestId: string) =>
    checkedFetch(`${inject('gatewayUrl')}/v3/users`, {
      method: 'POST',
      headers: { appid: app.appId, apikey: app.fullAccessKey, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ uid, name: uid }),
    });
  const correlationOf = async (uid: string) =>
    (await readBack('chat.users.events', (v) => v['type'] === 'UserCreated' && v['appId'] === app.appId && (v['data'] as { uid?: string }).uid === uid)).value['correlationId'];

  it('a plain id is adopted as the correlation id and echoed', async () => {
    const created = await createUser('rid-plain', 'client-trace.42:a-b');
    expect(created.status).toBe(200);
    expect(created.headers.get('x-request-id')).toBe('client-trace.42:a-b');
    expect(await correlationOf('rid-plain')).toBe('client-trace.42:a-b');
  }, 30_000);

  it('anything else is replaced by a generated id, which is echoed and becomes the correlation id', async () => {
    for (const [uid, given] of [
      ['rid-markup', '<script>alert(1)</script>'],
      ['rid-long', 'a'.repeat(65)],
      ['rid-spaces', 'two words'],
    ] as const) {
      const created = await createUser(uid, given);
      expect(created.status).toBe(200);
      const used = created.headers.get('x-request-id')!;
      expect(used).not.toBe(given);
      expect(used).toMatch(/^[0-9a-f-]{36}$/);
      expect(await correlationOf(uid)).toBe(used);
    }
  }, 60_000);
});
