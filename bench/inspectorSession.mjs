// A Chrome DevTools Protocol session on a bench stack's service, through the inspector its node options opened
// (`SERVICE_NODE_ARGS=--inspect=127.0.0.1:0`): the URL is the last one the service's log announced.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * @param {string} service  e.g. `messages`
 * @returns {Promise<{ send: (method: string, params?: object) => Promise<any>, on: (method: string, listener: (params: any) => void) => void, close: () => void }>}
 */
export async function inspectService(service) {
  const log = await readFile(join(ROOT, '.infra', 'logs', `${service}-test.log`), 'utf8');
  const url = [...log.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1)?.[1];
  if (!url) throw new Error(`${service}: no inspector URL in its log`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 1;
  const waiting = new Map();
  const listeners = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.method) {
      for (const listener of listeners.get(message.method) ?? []) listener(message.params);
      return;
    }
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new Error(`${service}: ${message.error.message}`));
    else entry.resolve(message.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const on = (method, listener) => listeners.set(method, [...(listeners.get(method) ?? []), listener]);
  return { send, on, close: () => socket.close() };
}
