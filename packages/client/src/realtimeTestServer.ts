import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeRealtimeCursor, realtimePaths } from '@chat/contracts/realtime';
import type { ServerFrame, ServerFrameOf } from '@chat/contracts/realtime';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

/*
 * A stand-in of the realtime service for the client's unit tests: a real HTTP server that speaks the
 * channel's contract over a real WebSocket (ws) and SSE, with knobs to misbehave. The end-to-end test
 * against the real service comes with it.
 */

export interface TestConnection {
  kind: 'websocket' | 'sse';
  since: string | null;
  lastEventId: string | undefined;
  received: unknown[];
  /** The client went away (a probe of the SSE path is one that goes at once). */
  gone: boolean;
  send(frame: ServerFrame): void;
  /** WebSocket: close with a code; SSE: end the stream. */
  close(code?: number): void;
}

export class RealtimeTestServer {
  readonly connections: TestConnection[] = [];
  readonly attempts: { kind: 'websocket' | 'sse'; at: number }[] = [];
  readonly validTokens = new Set(['token-alice']);
  /** Answer the upgrade with this status instead of accepting it. */
  refuseUpgrade: number | undefined;
  answerPings = true;
  rest: ((req: IncomingMessage, res: ServerResponse, body: string) => void) | undefined;
  readonly #http: Server;
  readonly #wss = new WebSocketServer({ noServer: true });
  #offset = 0;
  #waiters: (() => void)[] = [];

  private constructor() {
    this.#http = createServer((req, res) => this.#request(req, res));
    this.#http.on('upgrade', (req: IncomingMessage, socket, head) => {
      this.attempts.push({ kind: 'websocket', at: Date.now() });
      const url = new URL(req.url ?? '/', 'http://test');
      const status = this.refuseUpgrade ?? (this.validTokens.has(url.searchParams.get('authToken') ?? '') ? undefined : 401);
      if (url.pathname !== realtimePaths.websocket || status !== undefined) {
        socket.end(`HTTP/1.1 ${status ?? 404} Refused\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"error":{"code":"AUTH_ERR_NO_ACCESS","message":"refused"}}`);
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#acceptWebSocket(ws, url));
    });
  }

  static async start(): Promise<RealtimeTestServer> {
    const server = new RealtimeTestServer();
    await new Promise<void>((resolve) => server.#http.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
  }

  /** A message frame whose cursor is the next offset of partition 0 (its `n` names it). */
  nextMessage(): ServerFrameOf<'message'> {
    this.#offset += 1;
    return this.messageAt(this.#offset);
  }

  /** The message frame at an offset: a replay sends the same frame again. */
  messageAt(offset: number): ServerFrameOf<'message'> {
    const id = String(offset);
    return {
      type: 'message',
      cursor: encodeRealtimeCursor([[offset, 0], [0]]),
      data: { id, conversationId: 'alice_user_bob', sender: 'bob', receiverType: 'user', receiver: 'alice', category: 'message', type: 'text', data: { text: `m${id}` }, sentAt: 1, updatedAt: 1 },
    };
  }

  /** Resolves when there are `count` connections (or at once). */
  async connected(count: number): Promise<TestConnection> {
    while (this.connections.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.connections[count - 1]!;
  }

  /** The one connection still open, once there is exactly one (probes and dropped ones aside). */
  async live(): Promise<TestConnection> {
    const deadline = Date.now() + 3_000;
    for (;;) {
      const live = this.connections.filter((c) => !c.gone);
      if (live.length === 1) return live[0]!;
      if (Date.now() > deadline) throw new Error(`${live.length} live connections`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async stop(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  #acceptWebSocket(ws: WebSocket, url: URL): void {
    const connection: TestConnection = {
      kind: 'websocket',
      since: url.searchParams.get('since'),
      lastEventId: undefined,
      received: [],
      gone: false,
      send: (frame) => ws.send(JSON.stringify(frame)),
      close: (code) => ws.close(code ?? 1011),
    };
    ws.on('close', () => (connection.gone = true));
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string };
      connection.received.push(frame);
      if (frame.type === 'ping' && this.answerPings) ws.send(JSON.stringify({ type: 'pong' }));
    });
    this.#add(connection);
  }

  #request(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://test');
    if (url.pathname !== realtimePaths.events) {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => (this.rest ? this.rest(req, res, body) : res.writeHead(404).end()));
      return;
    }
    this.attempts.push({ kind: 'sse', at: Date.now() });
    if (!this.validTokens.has(url.searchParams.get('authToken') ?? '')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"AUTH_ERR_NO_ACCESS","message":"refused"}}');
      return;
    }
    // A short retry keeps EventSource's own reconnects quick in the tests.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' }).write('retry: 20\n\n');
    const lastEventId = req.headers['last-event-id'];
    const connection: TestConnection = {
      kind: 'sse',
      since: url.searchParams.get('since'),
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
      received: [],
      gone: false,
      send: (frame) => res.write(`${'cursor' in frame ? `id: ${frame.cursor}\n` : ''}event: ${frame.type}\ndata: ${JSON.stringify(frame)}\n\n`),
      close: () => res.end(),
    };
    res.on('close', () => (connection.gone = true));
    this.#add(connection);
  }

  #add(connection: TestConnection): void {
    this.connections.push(connection);
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
