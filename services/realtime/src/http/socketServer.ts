import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { Connection } from '../app/connections.js';
import type { ClientChannel } from '../app/connections.js';
import type { Sessions } from '../app/sessions.js';
import type { ClientFrames } from './clientFrames.js';
import { connectingUser, pathOf } from './identity.js';

export const SOCKET_PATH = '/v3/realtime';
/** Client frames are small (a ping, a typing notice): anything bigger is refused by `ws` (1009). */
const MAX_CLIENT_FRAME_BYTES = 4_096;

function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

function socketChannel(socket: WebSocket): ClientChannel {
  return {
    send: (text) => socket.send(text),
    bufferedBytes: () => socket.bufferedAmount,
    close: (code, reason) => {
      socket.close(code, reason);
      // A client that stopped reading may never answer the close: its buffer must go now.
      setTimeout(() => socket.terminate(), 1_000).unref();
    },
  };
}

/** The WebSocket side: upgrades on `SOCKET_PATH` from the gateway, one Connection per socket. */
export class SocketServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false });

  constructor(
    private readonly sessions: Sessions,
    private readonly clientFrames: ClientFrames,
    private readonly maxBufferedBytes: number,
    private readonly logger: Logger,
  ) {}

  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (pathOf(req) !== SOCKET_PATH) return refuseUpgrade(socket, 404, 'ERR_API_NOT_FOUND', `No operation GET ${pathOf(req)}.`);
    const user = connectingUser(req);
    if (!user) return refuseUpgrade(socket, 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', 'An auth token is required.');
    if (!this.sessions.admits(user.appId, user.uid, user.tokenId)) return refuseUpgrade(socket, 401, 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', 'The auth token is revoked.');
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new Connection(user.appId, user.uid, user.tokenId, socketChannel(ws), this.maxBufferedBytes);
      ws.on('message', (data, isBinary) => this.clientFrames.handle(connection, isBinary ? null : Buffer.isBuffer(data) ? data.toString('utf8') : null));
      ws.on('close', () => this.sessions.closed(connection));
      ws.on('error', (error) => this.logger.debug({ err: error }, 'socket error'));
      void this.sessions.open(connection, user.since);
    });
  };

  /** On shutdown: every client is told to reconnect (to another replica) with its cursor. */
  closeAll(): void {
    for (const ws of this.wss.clients) {
      ws.close(1001, 'server restarting: reconnect with the last cursor');
      setTimeout(() => ws.terminate(), 1_000).unref();
    }
  }
}
