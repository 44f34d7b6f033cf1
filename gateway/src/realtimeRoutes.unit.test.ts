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
let routes: RealtimeRoutes;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: ping\ndata: {}\n\n');
  });
  upstream.on('upgrade', (req, socket) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url?.includes('since=refuse')) {
      const body = JSON.stringify({ error: { code: 'ERR_BAD_REQUEST', message: 'bad cursor' } });
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
    socket.pipe(socket); // an echo: what the client writes after the upgrade comes back
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  routes = new RealtimeRoutes({
    domain: 'chat.localhost',
    region: 'us',
    upstreams: [{ hostname: '127.0.0.1', port: (upstream.address() as AddressInfo).port }],
    authenticate: async (_req, appId, token) => (token === 'slow-down' ? 7 : appId === 'app1' && token === 'good-token' ? { uid: 'bob', tokenId: 'tid' } : null),
    logger: pino({ level: 'silent' }),
  });
  gateway = createServer((req, res) => routes.handle(req, res, new URL(req.url ?? '/', 'http://x').pathname, 'rid'));
  gateway.on('upgrade', (req, socket, head) => routes.upgrade(req, socket, head, 'rid'));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(() => {
  routes.close();
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

  it('upgrades through http-proxy-middleware: identity headers, no token, bytes both ways', async () => {
    seen.length = 0;
    const echoed = await new Promise<string>((resolve, reject) => {
      const req = request(`${base}/v3/realtime?appId=app1&authToken=good-token&since=abc`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
      req.on('upgrade', (res, socket) => {
        expect(res.statusCode).toBe(101);
        socket.once('data', (data: Buffer) => {
          socket.destroy();
          resolve(data.toString());
        });
        socket.write('hello through');
      });
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    expect(echoed).toBe('hello through');
    expect(seen[0]!.url).toBe('/v3/realtime?since=abc');
    expect(seen[0]!.headers).toMatchObject({ 'x-chat-app-id': 'app1', 'x-chat-on-behalf-of': 'bob', upgrade: 'websocket' });
    expect(JSON.stringify(seen[0]!.headers)).not.toContain('good-token');
  });

  it("relays the replica's refusal of an upgrade as it answered, and refuses a bad token itself", async () => {
    const answer = (query: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${base}/v3/realtime?${query}`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      });
    const refused = await answer('appId=app1&authToken=good-token&since=refuse');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({ error: { code: 'ERR_BAD_REQUEST', message: 'bad cursor' } });
    const badToken = await answer('appId=app1&authToken=bad');
    expect(badToken.status).toBe(401);
    expect(JSON.parse(badToken.body).error.code).toBe('AUTH_ERR_AUTH_TOKEN_NOT_FOUND');
  });

  it('answers 502 in CometChat\'s shape when the replica cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new RealtimeRoutes({
      domain: 'chat.localhost',
      region: 'us',
      upstreams: [{ hostname: '127.0.0.1', port }],
      authenticate: async () => ({ uid: 'bob', tokenId: 'tid' }),
      logger: pino({ level: 'silent' }),
    });
    const server = createServer((req, res) => unreachable.handle(req, res, new URL(req.url ?? '/', 'http://x').pathname, 'rid'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/realtime/events?appId=app1&authToken=any`);
      const body = (await response.json()) as { error: { code: string } };
      expect(response.status).toBeGreaterThanOrEqual(502);
      expect(body.error.code).toBe('ERR_UPSTREAM_UNAVAILABLE');
    } finally {
      server.close();
    }
  });
});
