import { Agent, request } from 'node:http';

/**
 * The gateway's own look-ups of a service (API keys, apps, role rules): a GET of an internal JSON
 * endpoint over one keep-alive `node:http` agent. A role look-up goes out for about every message
 * (each user's rules are at most 1 s old), and `fetch` spent about three times the CPU of a plain
 * request on each (its streams, a transferable abort signal per call; ADR 0047).
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, scheduling: 'lifo' });

/**
 * The answer's parsed JSON; null on a 404 (no such key, app or user). Any other status, a body that is
 * not JSON, a failed connection or no complete answer within `timeoutMs` rejects.
 */
export function getInternalJson(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        res.on('end', () => (status === 404 ? resolve(null) : reject(new Error(`${new URL(url).pathname} answered ${status}`))));
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer from ${new URL(url).pathname} within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}
