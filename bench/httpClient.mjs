// A JSON client for the gateway on one keep-alive agent, for benchmarks that send many requests at
// once. Every request is bounded by a timeout and never rejects: a refused connection, a reset or a
// timeout comes back as status 0 with the reason, so a stalled system is counted, not waited for.
import http from 'node:http';

/**
 * @typedef {object} Answer
 * @property {number} status  the HTTP status; 0 when no answer came (see `error`)
 * @property {any} body  the parsed JSON body, when there was one
 * @property {string} [error]  why no answer came: `timeout` or the socket error's message
 */

/**
 * @param {string} baseUrl  e.g. the stack's gatewayUrl
 * @param {{ maxSockets?: number, timeoutMs?: number }} [options]
 */
export function createGatewayClient(baseUrl, { maxSockets = 1024, timeoutMs = 10_000 } = {}) {
  const target = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });

  /**
   * @param {string} method
   * @param {string} path
   * @param {Record<string, string>} headers
   * @param {unknown} [body]
   * @returns {Promise<Answer>}
   */
  function request(method, path, headers, body) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path,
          method,
          agent,
          headers: {
            ...headers,
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', (error) => settle({ status: 0, body: undefined, error: error.message }));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = text;
            }
            settle({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      // A wall-clock bound on the whole exchange (a socket timeout would restart on every byte).
      const timer = setTimeout(() => {
        settle({ status: 0, body: undefined, error: 'timeout' });
        req.destroy();
      }, timeoutMs);
      req.on('error', (error) => settle({ status: 0, body: undefined, error: error.message }));
      req.end(payload);
    });
  }

  return { request, close: () => agent.destroy() };
}
