import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process has handed out: two children of one stack never get the same one. */
const handedOut = new Set<number>();
const ATTEMPTS = 200;

/**
 * A port a child process (a service, a broker) will listen on, chosen before it starts. Never from the
 * kernel's ephemeral range: a port taken from there (`listen(0)`, then closed) is free only until the
 * next outgoing connection of any process on the machine is given it as its local port, and a stack
 * opens hundreds (Kafka clients, store pools); the service then exits with EADDRINUSE. Above the range
 * when there is room (Linux's default range ends at 60999), else below it. Each candidate is tried by
 * binding it, and none is handed out twice by this process.
 */
export async function unusedPort(): Promise<number> {
  const [low, high] = portsAvailable();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no unused port in ${low}–${high} after ${ATTEMPTS} tries`);
}

/** The ports outside the kernel's ephemeral range that a stack may use. */
function portsAvailable(): [number, number] {
  let ephemeral: [number, number] = [32768, 60999];
  try {
    const [from, to] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(from) && Number.isInteger(to)) ephemeral = [from!, to!];
  } catch {
    // Not Linux: keep Linux's default range as the one to avoid.
  }
  const [from, to] = ephemeral;
  if (65535 - to >= 1000) return [to + 1, 65535];
  return [Math.max(1024, from - 10_000), from - 1];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
