import { Router } from 'express';
import type { Response } from 'express';
import { Connection } from '../app/connections.js';
import type { ClientChannel } from '../app/connections.js';
import type { Sessions } from '../app/sessions.js';
import { connectingUser } from './identity.js';

export const EVENTS_PATH = '/v3/realtime/events';
/** A comment line this often keeps proxies from closing a quiet stream (the gateway times out after 15 s idle). */
const HEARTBEAT_MS = 10_000;

/**
 * One SSE event per frame: `id:` the cursor (what the browser sends back as `Last-Event-ID`),
 * `event:` the type, `data:` the frame itself (one line of JSON).
 */
function streamChannel(res: Response): ClientChannel {
  return {
    send: (text, type, cursor) => {
      res.write(`${cursor !== undefined ? `id: ${cursor}\n` : ''}event: ${type}\ndata: ${text}\n\n`);
    },
    // What the response holds that the socket has not taken: `write()`'s backpressure.
    bufferedBytes: () => res.writableLength,
    close: (code, reason) => {
      if (res.writableEnded) return;
      res.end(`event: close\ndata: ${JSON.stringify({ type: 'close', code, reason })}\n\n`);
      // A client that stopped reading keeps the end unsent: drop the socket with it.
      setTimeout(() => res.destroy(), 1_000).unref();
    },
  };
}

/** SSE `GET /v3/realtime/events`: the same frames as the socket, resumed from `Last-Event-ID` or `since`. */
export function eventsRouter(sessions: Sessions, maxBufferedBytes: number): { router: Router; closeAll(): void } {
  const open = new Set<Response>();
  const router = Router();
  router.get(EVENTS_PATH, (req, res) => {
    const user = connectingUser(req);
    if (!user || !sessions.admits(user.appId, user.uid, user.tokenId)) {
      res.status(401).json({ error: { code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', message: 'An auth token is required (and not revoked).' } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    const connection = new Connection(user.appId, user.uid, user.tokenId, streamChannel(res), maxBufferedBytes);
    open.add(res);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    res.on('close', () => {
      clearInterval(heartbeat);
      open.delete(res);
      sessions.closed(connection);
    });
    void sessions.open(connection, user.since);
  });
  return {
    router,
    closeAll() {
      for (const res of open) res.end();
    },
  };
}
