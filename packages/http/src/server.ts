import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface RunningServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Listens with keep-alive tuned for a gateway in front (its agent reuses sockets). */
export async function listen(handler: RequestListener, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function onShutdownSignal(stop: () => Promise<void>, log: (message: string) => void): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`received ${signal}, shutting down`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
