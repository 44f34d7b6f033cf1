import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getInternalJson } from './internalJson.js';

describe('getInternalJson', () => {
  let server: Server;
  let base = '';
  const connections = new Set<string>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      connections.add(`${req.socket.remotePort}`);
      if (req.url === '/found') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ role: 'default', n: 1 }));
      if (req.url === '/missing') return void res.writeHead(404).end('{"error":{}}');
      if (req.url === '/broken') return void res.writeHead(500).end('oops');
      if (req.url === '/not-json') return void res.writeHead(200).end('<html>');
      // /slow never answers within the caller's timeout
      setTimeout(() => res.writeHead(200).end('{}'), 500);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers the parsed body, and null for a 404', async () => {
    expect(await getInternalJson(`${base}/found`, 1_000)).toEqual({ role: 'default', n: 1 });
    expect(await getInternalJson(`${base}/missing`, 1_000)).toBeNull();
  });

  it('rejects any other status, a body that is not JSON, and no answer in time', async () => {
    await expect(getInternalJson(`${base}/broken`, 1_000)).rejects.toThrow('/broken answered 500');
    await expect(getInternalJson(`${base}/not-json`, 1_000)).rejects.toThrow(SyntaxError);
    await expect(getInternalJson(`${base}/slow`, 50)).rejects.toThrow('within 50 ms');
  });

  it('reuses its connection for look-ups one after another', async () => {
    connections.clear();
    for (let i = 0; i < 5; i++) await getInternalJson(`${base}/found`, 1_000);
    expect(connections.size).toBe(1);
  });
});
