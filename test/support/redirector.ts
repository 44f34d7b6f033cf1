import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An endpoint on loopback that answers every request with `302 Found` to `location`: a tenant's way
 * to point the platform somewhere its URL check never saw. Counts the requests it answered.
 */
export class Redirector {
  hits = 0;
  url = '';
  private server: Server | undefined;

  constructor(private readonly location: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.hits++;
      req.resume();
      req.on('end', () => res.writeHead(302, { location: this.location, 'content-type': 'text/plain' }).end('moved'));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
