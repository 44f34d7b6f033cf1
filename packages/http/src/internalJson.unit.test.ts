import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalJsonClient } from './internalJson.js';
import type { InternalJsonClient } from './internalJson.js';

describe('internalJsonClient', () => {
  let server: Server;
  let client: InternalJsonClient;
  let base = '';
  const connections = new Set<string>();

  beforeAll(async () => {
    server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      connections.add(`${req.socket.remotePort}`);
      if (req.url === '/echo' && req.method === 'POST') {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ type: req.headers['content-type'], got: JSON.parse(Buffer.concat(chunks).toString()) as unknown })));
        return;
      }
      if (req.url === '/found') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ role: 'default', n: 1 }));
      if (req.url === '/missing') return void res.writeHead(404).end('{"error":{}}');
      if (req.url === '/broken') return void res.writeHead(500).end('oops');
      if (req.url === '/not-json') return void res.writeHead(200).end('<html>');
      // /slow never answers within the client's timeout
      setTimeout(() => res.writeHead(200).end('{}'), 4_000).unref();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = internalJsonClient(base, 1_000, 'users');
  });
  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers the parsed body, and null for a 404', async () => {
    expect(await client.get('/found')).toEqual({ role: 'default', n: 1 });
    expect(await client.get('/missing')).toBeNull();
  });

  it('rejects any other status, a body that is not JSON, and no answer in time', async () => {
    await expect(client.get('/broken')).rejects.toThrow('users answered 500 to /broken');
    await expect(client.get('/not-json')).rejects.toThrow(SyntaxError);
    await expect(client.get('/slow')).rejects.toThrow(/timeout/i);
  });

  it('posts JSON and answers the parsed body; any status but 2xx rejects, a 404 too', async () => {
    expect(await client.post('/echo', { uids: ['a', 'b'] })).toEqual({ type: 'application/json', got: { uids: ['a', 'b'] } });
    await expect(client.post('/missing', {})).rejects.toThrow('users answered 404 to POST /missing');
    await expect(client.post('/broken', {})).rejects.toThrow('users answered 500 to POST /broken');
  });

  it('keeps its connections for look-ups one after another', async () => {
    const own = internalJsonClient(base, 1_000, 'users');
    connections.clear();
    for (let i = 0; i < 20; i++) await own.get('/found');
    // A socket is free again a moment after its answer is read, so a second one may open; no more.
    expect(connections.size).toBeLessThanOrEqual(2);
    await own.close();
  });
});
