import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unusedPort } from '@chat/devstack';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const ferretdbBinary = join(repoRoot, '.infra', 'bin', 'ferretdb');
const usersMain = join(repoRoot, 'services', 'users', 'dist', 'main.js');

async function readyz(baseUrl: string): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const response = await fetch(`${baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, string> } };
}

async function metricsText(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The samples of one metric whose labels include every given label, as numbers. */
function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const values: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    values.push(Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return values;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('health, readiness and metrics of every process', () => {
  const processes = () => ({ gateway: inject('gatewayUrl'), ...inject('serviceUrls') });

  it('every process answers /healthz, and /readyz with its checks passing', async () => {
    for (const [name, url] of Object.entries(processes())) {
      const live = await fetch(`${url}/healthz`);
      expect(live.status, name).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      const ready = await readyz(url);
      expect(ready.status, name).toBe(200);
      expect(ready.body.status).toBe('ready');
      if (name === 'gateway') expect(ready.body.checks).toEqual({ listening: 'ok' });
      // Realtime produces nothing: its window of the topics and its group read model's consumer (ADR 0069).
      else if (name === 'realtime') expect(ready.body.checks).toMatchObject({ store: 'ok', window: 'ok', memberships: 'ok' });
      else expect(ready.body.checks).toMatchObject({ store: 'ok', producer: 'ok', consumer: 'ok' });
    }
  });

  it('a service counts requests per route pattern (not per raw path) and shows its relay backlog and lag', async () => {
    const app = await createApp('metrics');
    // Each replica counts its own share of what the gateway balances across them.
    const replicas = inject('replicaUrls')['users']!;
    const counted = async () => {
      let total = 0;
      for (const url of replicas) total += sum(samples(await metricsText(url), 'http_request_duration_seconds_count', { route: '/v3/users/:uid', method: 'GET' }));
      return total;
    };
    const before = await counted();
    await createUser(app, 'metered');
    for (let i = 0; i < 3; i++) expect((await app.call('GET', '/v3/users/metered')).status).toBe(200);
    expect(await counted()).toBe(before + 3);
    const text = await metricsText(replicas[0]!);
    expect(text).not.toContain('route="/v3/users/metered"');
    expect(samples(text, 'relay_backlog_events', { topic: 'chat.users.events' })).toHaveLength(1);
    expect(samples(text, 'consumer_lag_messages', { topic: 'chat.users.events' }).length).toBeGreaterThan(0);
    expect(samples(text, 'projection_batch_events_count').length).toBeGreaterThan(0);
    expect(samples(text, 'process_cpu_seconds_total')).toHaveLength(1);
  });

  it('the gateway serves its own metrics next to the proxied API', async () => {
    const text = await metricsText(inject('gatewayUrl'));
    expect(samples(text, 'gateway_upstream_waiting', { service: 'users' })).toEqual([0]);
    expect(samples(text, 'gateway_redis_connected')).toEqual([1]);
  });
});

describe('a service whose store stops', () => {
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ferretdb-readyz-'));

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startStore(port: number): Promise<ChildProcess> {
    const store = spawn(ferretdbBinary, ['--listen-addr', `127.0.0.1:${port}`, '--sqlite-dir', dataDir], { stdio: 'ignore' });
    children.push(store);
    return store;
  }

  it('turns unready while its store is down, its consumer lag rises meanwhile, and both recover when the store returns', async (context) => {
    // A store of this test's own (the project's FerretDB runner), so stopping it disturbs no other test.
    if (!existsSync(ferretdbBinary)) return context.skip();
    const storePort = await unusedPort();
    const servicePort = await unusedPort();
    let store = await startStore(storePort);
    const service = spawn(process.execPath, [usersMain], {
      stdio: 'ignore',
      env: {
        ...process.env,
        PORT: String(servicePort),
        MONGO_URL: `mongodb://127.0.0.1:${storePort}/`,
        MONGO_DB: `readyz_${Date.now().toString(36)}`,
        KAFKA_BROKERS: inject('kafkaBrokers'),
        LOG_LEVEL: 'silent',
      },
    });
    children.push(service);
    const url = `http://127.0.0.1:${servicePort}`;
    const lagOf = async () => sum(samples(await metricsText(url), 'consumer_lag_messages', { topic: 'chat.users.events' }));

    // Ready once connected and joined, and caught up with the users topic from its beginning.
    const started = await eventually(() => readyz(url).catch(() => ({ status: 0, body: { status: 'down', checks: {} } })), (r) => r.status === 200, 60_000);
    expect(started.status).toBe(200);
    expect(await eventually(lagOf, (lag) => lag === 0, 60_000)).toBe(0);

    store.kill('SIGTERM');
    await once(store, 'exit');
    const down = await eventually(() => readyz(url), (r) => r.status === 503, 15_000);
    expect(down.body.status).toBe('unready');
    expect(down.body.checks['store']).not.toBe('ok');
    expect(down.body.checks['producer']).toBe('ok');

    // Users created through the real stack reach the topic; this service cannot apply them while its
    // store is away, so its group commits nothing and the lag its /metrics reports rises.
    const app = await createApp('lagging');
    for (const uid of ['lag-1', 'lag-2', 'lag-3']) await createUser(app, uid);
    const risen = await eventually(lagOf, (lag) => lag >= 3, 20_000);
    expect(risen).toBeGreaterThanOrEqual(3);
    expect((await fetch(`${url}/healthz`)).status).toBe(200); // alive all along: no restart is wanted

    store = await startStore(storePort);
    const back = await eventually(() => readyz(url), (r) => r.status === 200, 60_000);
    expect(back.body.checks).toMatchObject({ store: 'ok', producer: 'ok', consumer: 'ok' });
    expect(await eventually(lagOf, (lag) => lag === 0, 60_000)).toBe(0);
  }, 240_000);
});
