// A loopback HTTP receiver that answers every request 200 "ok", in a child process of its own so that its
// CPU is not the measuring process's (the webhook and outbound-call cost benches). `forkOkReceiver()`
// starts it and resolves with its port; run directly as a child, it listens and sends the port.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const thisFile = fileURLToPath(import.meta.url);

/** @returns {Promise<{ port: number, stop(): void }>} */
export async function forkOkReceiver() {
  const child = fork(thisFile, ['--listen']);
  const port = await new Promise((done) => child.once('message', done));
  return { port, stop: () => child.kill() };
}

if (process.argv[1] === thisFile && process.argv[2] === '--listen') {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
}
