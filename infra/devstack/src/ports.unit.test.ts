import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { unusedPort } from './ports.js';

describe('unusedPort', () => {
  it('hands out distinct ports outside the kernel ephemeral range, each free to listen on', async () => {
    const [from, to] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await unusedPort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port >= from! && port <= to!).toBe(false);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
