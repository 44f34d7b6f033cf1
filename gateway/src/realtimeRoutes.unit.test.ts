import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeRoutes } from './realtimeRoutes.js';

/** A realtime replica stand-in that answers with what it was sent; the gateway side is the real class. */
let upstream: Server;
let gateway: Server;
let base = '';
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: ping\ndata: {}\n\n');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const routes = new RealtimeRoutes({
    domain: 'chat.localhost',
    region: 'us',
    upstreams: [{ hostname: '127.0.0.1', port: (upstream.address() as AddressInfo).port }],
    authenticate: async (_req, appId, token) => (token === 'slow-down' ? 7 : appId === 'app1' && token === 'good-token' ? { uid: 'bob', tokenId: 'tid' } : null),
    logger: pino({ level: 'silent' }),
  });
  gateway = createServer((req, res) => routes.handle(req, res, new URL(req.url ?? '/', 'http://x').pathname, 'rid'));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(() => {
  gateway.close();
  upstream.close();
});

describe('the gateway side of the realtime channel', () => {
  it('forwards an event stream with the identity headers and without the token', async () => {
    seen.length = 0;
    const response = await fetch(`${base}/v3/realtime/events?appId=app1&authToken=good-token&since=abc`, { headers: { 'x-chat-on-behalf-of': 'mallory' } });
    expect(response.status).toBe(200);
    await response.text();
    expect(seen[0]!.url).toBe('/v3/realtime/events?since=abc');
    expect(seen[0]!.headers).toMatchObject({ 'x-chat-app-id': 'app1', 'x-chat-on-behalf-of': 'bob', 'x-chat-auth-token-id': 'tid' });
    expect(JSON.stringify(seen[0]!.headers)).not.toContain('good-token');
  });

  it('refuses a missing, unknown or another app\'s token with 401, and a missing tenant with 400', async () => {
    for (const query of ['appId=app1', 'appId=app1&authToken=bad', 'appId=app2&authToken=good-token']) {
      const response = await fetch(`${base}/v3/realtime/events?${query}`);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
    }
    const noTenant = await fetch(`${base}/v3/realtime/events?authToken=good-token`);
    expect(noTenant.status).toBe(400);
  });

  it('refuses with 429 when the address has used up its failed authentications', async () => {
    const response = await fetch(`${base}/v3/realtime/events?appId=app1&authToken=slow-down`);
    expect(response.status).toBe(429);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('ERR_TOO_MANY_REQUESTS');
    expect(body.error.message).toContain('7 s');
  });

  it('takes the tenant from the chat host', async () => {
    seen.length = 0;
    // fetch may not set Host: a plain request does.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/v3/realtime/events?authToken=good-token`, { headers: { host: 'app1.api-us.chat.localhost' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(seen[0]!.headers['x-chat-app-id']).toBe('app1');
  });
});
