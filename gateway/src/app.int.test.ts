import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY_INVALIDATION_CHANNEL } from '@chat/contracts';
import type { ApiKeyIdentity, RoleAccess } from '@chat/contracts';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './app.js';
import type { Gateway } from './app.js';
import { sha256Hex } from './auth.js';
import { loadConfig } from './config.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const appId = `app${Date.now().toString(36)}`;
const apiKey = `${Date.now().toString(16)}`.padEnd(40, '0');
const keyHash = sha256Hex(apiKey);

/** The management service as the gateway sees it: a table of live keys. */
const liveKeys = new Map<string, ApiKeyIdentity>();
/** Every acting user is looked up; here every uid is an active user of the default role. */
const defaultRole: RoleAccess = { role: 'default', permissions: {}, restrictedFeatures: [] };

describe('gateway (real Redis, stub upstream)', () => {
  let upstream: Server;
  let gateway: Gateway;
  let base: string;
  let redis: Redis;
  let subscriber: Redis;
  let publisher: Redis;
  const seen: Record<string, string | string[] | undefined>[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const config = loadConfig({
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      USERS_URL: upstreamUrl,
      CONVERSATIONS_URL: upstreamUrl,
      MESSAGES_URL: upstreamUrl,
      CALLS_URL: upstreamUrl,
      MANAGEMENT_URL: upstreamUrl,
      WEBHOOKS_URL: upstreamUrl,
      NOTIFICATIONS_URL: upstreamUrl,
      MANAGEMENT_KEY: randomBytes(16).toString('hex'),
      MANAGEMENT_SECRET: randomBytes(24).toString('hex'),
    });
    redis = new Redis(redisUrl);
    subscriber = new Redis(redisUrl);
    publisher = new Redis(redisUrl);
    gateway = createGateway(config, {
      redis,
      subscriber,
      logger: pino({ level: 'silent' }),
      fetchKey: (hash) => Promise.resolve(liveKeys.get(hash) ?? null),
      fetchApp: () => Promise.resolve(null),
      roleLookups: {
        load: () => Promise.resolve(defaultRole),
        loadMany: (_appId, uids) => Promise.resolve(uids.map(() => defaultRole)),
      },
    });
    base = `http://127.0.0.1:${await gateway.start()}`;
  });

  afterAll(async () => {
    await gateway.stop();
    await Promise.all([redis.quit(), subscriber.quit(), publisher.quit()]);
    await new Promise((resolve) => upstream.close(resolve));
  });

  const unpin = () =>
    fetch(`${base}/v3/users/u2/conversation/pin`, {
      method: 'DELETE',
      headers: { appid: appId, apikey: apiKey, onbehalfof: 'u1', 'x-chat-scope': 'fullAccess' },
    });

  it('forwards an authenticated call with the identity it established', async () => {
    liveKeys.set(keyHash, { appId, keyId: 'key1', scope: 'authOnly' });
    await redis.del(`apikey:${keyHash}`);
    expect((await unpin()).status).toBe(403); // authOnly may not unpin
    liveKeys.set(keyHash, { appId, keyId: 'key1', scope: 'fullAccess' });
    await redis.del(`apikey:${keyHash}`);
    await publisher.publish(API_KEY_INVALIDATION_CHANNEL, keyHash);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await unpin();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(seen.at(-1)).toMatchObject({
      'x-chat-app-id': appId,
      'x-chat-key-id': 'key1',
      'x-chat-scope': 'fullAccess',
      'x-chat-on-behalf-of': 'u1',
    });
    expect(seen.at(-1)?.['apikey']).toBeUndefined();
  });

  it('never forwards a client’s own trace context (the gateway starts every trace, ADR 0032)', async () => {
    const response = await fetch(`${base}/v3/users/u2/conversation/pin`, {
      method: 'DELETE',
      headers: { appid: appId, apikey: apiKey, onbehalfof: 'u1', traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`, tracestate: 'vendor=x' },
    });
    expect(response.status).toBe(200);
    expect(seen.at(-1)?.['traceparent']).toBeUndefined();
    expect(seen.at(-1)?.['tracestate']).toBeUndefined();
  });

  it('refuses a revoked key at once when the invalidation is published', async () => {
    expect((await unpin()).status).toBe(200);
    liveKeys.delete(keyHash);
    await redis.del(`apikey:${keyHash}`);
    await publisher.publish(API_KEY_INVALIDATION_CHANNEL, keyHash);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await unpin();
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'AUTH_ERR_APIKEY_NOT_FOUND' } });
  });

  it('refuses a revoked key within 1 s even when the invalidation message is lost', async () => {
    liveKeys.set(keyHash, { appId, keyId: 'key1', scope: 'fullAccess' });
    gateway.keys.invalidate(keyHash);
    expect((await unpin()).status).toBe(200);
    liveKeys.delete(keyHash);
    await redis.del(`apikey:${keyHash}`); // management's DEL happened; its PUBLISH did not reach us
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 2_000) {
      status = (await unpin()).status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_100);
  });
});
