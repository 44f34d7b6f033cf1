import { Pool } from 'undici';

/** A service's internal JSON endpoints as the gateway reads them (API keys, apps, role rules). */
export interface InternalJsonClient {
  /**
   * The answer's parsed JSON; null on a 404 (no such key, app or user). Any other status, a body that
   * is not JSON, a failed connection, or no headers (or a stalled body) within the timeout rejects
   * (undici's coarse timers: up to about a second past it, which a look-up's 3 s budget allows).
   */
  get(path: string): Promise<unknown>;
  /**
   * `body` as JSON; the answer's parsed JSON. Every status but 2xx rejects, a 404 too: a batched
   * look-up names what it asks in the body, so a 404 means a service without the endpoint.
   */
  post(path: string, body: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Look-ups over undici's own request API on a pool per service: the library and the connection
 * handling `fetch` uses (keep-alive sockets, the server's keep-alive hint honoured, as many
 * connections as requests in flight), without `fetch`'s WHATWG streams and an `AbortSignal` per call,
 * about a fifth of the CPU per look-up (ADR 0057). Not node:http's keep-alive agent, which ADR 0047
 * withdrew from this path.
 */
export function internalJsonClient(baseUrl: string, timeoutMs: number, service: string): InternalJsonClient {
  const pool = new Pool(baseUrl, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return {
    async get(path) {
      const { statusCode, body } = await pool.request({ method: 'GET', path, headers: { accept: 'application/json' } });
      if (statusCode === 404) {
        await body.dump();
        return null;
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump();
        throw new Error(`${service} answered ${statusCode} to ${path}`);
      }
      return body.json();
    },
    async post(path, json) {
      const { statusCode, body } = await pool.request({
        method: 'POST',
        path,
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump();
        throw new Error(`${service} answered ${statusCode} to POST ${path}`);
      }
      return body.json();
    },
    close: () => pool.close(),
  };
}
