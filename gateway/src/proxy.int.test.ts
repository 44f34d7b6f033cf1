import { createServer, request } from 'node:http';
import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Upstream } from './config.js';
import { UpstreamProxy } from './proxy.js';

async function serve(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function call(port: number, path: string, body?: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('close', () => {
        if (!res.complete) reject(new Error('response cut short'));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('UpstreamProxy (real sockets)', () => {
  const upstreamClosed: string[] = [];
  let upstream: { server: Server; port: number };
  let front: { server: Server; port: number };
  let proxy: UpstreamProxy;
  let target: Upstream;

  beforeAll(async () => {
    upstream = await serve((req, res) => {
      req.on('close', () => upstreamClosed.push(req.url ?? ''));
      if (req.url === '/never') return;
      if (req.url === '/half') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('only part');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      let size = 0;
      req.on('data', (c: Buffer) => (size += c.length));
      req.on('end', () => res.writeHead(201, { 'x-upstream': 'yes', connection: 'keep-alive' }).end(JSON.stringify({ size })));
    });
    proxy = new UpstreamProxy({ timeoutMs: 300, maxSockets: 8, maxWaiting: 64, onUpstreamError: () => undefined });
    target = { hostname: '127.0.0.1', port: upstream.port };
    front = await serve((req, res) => {
      const to = req.url === '/refused' ? { hostname: '127.0.0.1', port: 1 } : target;
      const { host, connection, ...headers } = req.headers;
      void host;
      void connection;
      proxy.forward(req, res, to, headers, 'req-1');
    });
  });

  afterAll(async () => {
    proxy.close();
    await Promise.all([upstream, front].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  it('streams a large body up and the answer back, with the request id', async () => {
    const response = await call(front.port, '/echo', Buffer.alloc(3_000_000, 97));
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toEqual({ size: 3_000_000 });
    expect(response.headers['x-upstream']).toBe('yes');
    expect(response.headers['x-request-id']).toBe('req-1');
  });

  it('answers 502 in CometChat shape when the upstream refuses the connection', async () => {
    const response = await call(front.port, '/refused');
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'ERR_UPSTREAM_UNAVAILABLE' } });
  });

  it('answers 504 when the upstream stays silent past the timeout', async () => {
    const started = Date.now();
    const response = await call(front.port, '/never');
    expect(response.status).toBe(504);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'ERR_UPSTREAM_TIMEOUT' } });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('cuts the client response when the upstream dies mid-body', async () => {
    await expect(call(front.port, '/half')).rejects.toThrow('response cut short');
  });

  it('releases the upstream request when the client goes away', async () => {
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port: front.port, path: '/never' });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 50);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(upstreamClosed.filter((url) => url === '/never').length).toBeGreaterThanOrEqual(2);
  });

  it('answers 503 with Retry-After at once when too many requests already wait for a socket to the upstream', async () => {
    const narrow = new UpstreamProxy({ timeoutMs: 300, maxSockets: 2, maxWaiting: 1, onUpstreamError: () => undefined });
    const narrowFront = await serve((req, res) => narrow.forward(req, res, target, {}, 'req-2'));
    try {
      // Two hold the sockets, one waits for a socket: the next is refused without waiting.
      const held = [call(narrowFront.port, '/never'), call(narrowFront.port, '/never'), call(narrowFront.port, '/never')];
      const deadline = Date.now() + 1_000;
      while (narrow.waitingFor(target) < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      const started = Date.now();
      const refused = await call(narrowFront.port, '/echo');
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'ERR_SERVICE_UNAVAILABLE' } });
      expect(Date.now() - started).toBeLessThan(200);
      await Promise.allSettled(held);
    } finally {
      narrow.close();
      await new Promise((resolve) => narrowFront.server.close(resolve));
    }
  });

  it('sends a bodiless request a replica refused to another replica once; a request with a body is answered 502, never sent twice', async () => {
    const gone: Upstream = { hostname: '127.0.0.1', port: 1 };
    const failures: number[] = [];
    const asked: Array<string | undefined> = [];
    const failover = new UpstreamProxy({
      timeoutMs: 300,
      maxSockets: 8,
      maxWaiting: 64,
      onUpstreamError: (_error, failed) => failures.push(failed.port),
      alternativeTo: (failed, headers) => {
        asked.push(headers['x-acting-user'] as string | undefined);
        return failed === gone ? target : undefined;
      },
    });
    const failoverFront = await serve((req, res) => failover.forward(req, res, gone, { ...req.headers, 'x-acting-user': 'ann' }, 'req-3'));
    try {
      const read = await call(failoverFront.port, '/echo');
      expect(read.status).toBe(201);
      expect(JSON.parse(read.body)).toEqual({ size: 0 });
      expect(failures).toEqual([1]);
      expect(asked).toEqual(['ann']);

      const write = await call(failoverFront.port, '/echo', Buffer.from('{"text":"hello"}'));
      expect(write.status).toBe(502);
      expect(JSON.parse(write.body)).toMatchObject({ error: { code: 'ERR_UPSTREAM_UNAVAILABLE' } });
      expect(failures).toEqual([1, 1]);
      expect(asked).toEqual(['ann']);
    } finally {
      failover.close();
      await new Promise((resolve) => failoverFront.server.close(resolve));
    }
  });
});
