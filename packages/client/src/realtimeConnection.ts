import { REALTIME_CLOSE_TOKEN_REVOKED, REALTIME_CLOSE_TOO_SLOW, cursorCovers, decodeRealtimeCursor, isCursorFrame, parseServerFrame } from '@chat/contracts/realtime';
import type { ClientFrame, CursorFrame, CursorVector, ServerFrame, ServerFrameOf, ServerFrameType } from '@chat/contracts/realtime';
import { backoffDelay } from './backoff.js';
import type { BackoffOptions } from './backoff.js';
import { Emitter } from './emitter.js';
import { globalEventSource, globalWebSocket, openEventSource, openWebSocket, realtimeUrl } from './transports.js';
import type { EventSourceConstructor, Transport, TransportKind, WebSocketConstructor } from './transports.js';
import { TypingThrottle } from './typing.js';
import type { TypingOptions, TypingTarget } from './typing.js';

export interface RealtimeOptions {
  /** The chat host (`https://{appId}.api-{region}.{domain}`) or a plain host with `appId`. */
  baseUrl: string;
  appId?: string;
  /** The user's auth token (`POST /v3/users/{uid}/auth_tokens`). */
  authToken: string;
  /** A cursor kept from an earlier session: the first connection resumes after it. */
  since?: string;
  /** The WebSocket class: the global one by default; pass `ws`'s in Node < 22, or null for SSE only. */
  WebSocket?: WebSocketConstructor | null;
  /** The EventSource class for the fallback: the global one by default (browsers), or null for none. */
  EventSource?: EventSourceConstructor | null;
  /** Used once after a failed open to tell a refused token (401) from an unreachable server. */
  fetch?: typeof fetch;
  backoff?: BackoffOptions;
  /** A WebSocket ping every this many ms (default 25 000) keeps idle connections open through proxies. */
  pingIntervalMs?: number;
  /** No frame this long after a ping (default 10 000): the connection is dead and is replaced. */
  pongTimeoutMs?: number;
  typing?: TypingOptions;
}

type DataEvents = { [T in Exclude<ServerFrameType, 'pong' | 'resync_required'>]: [data: ServerFrameOf<T>['data'], frame: ServerFrameOf<T>] };

/** What a connection tells its listeners: every data frame by its type, and its own life. */
export type RealtimeEvents = DataEvents & {
  /** Frames were missed beyond what the server keeps: re-read what you show over REST. */
  resync_required: [frame: ServerFrameOf<'resync_required'>];
  open: [info: { transport: TransportKind; resumedFrom?: string }];
  disconnected: [info: { transport: TransportKind; code?: number; reason?: string }];
  reconnecting: [info: { attempt: number; delayMs: number; transport: TransportKind }];
  /** The token is dead (4401, or 401 on connecting): the connection stops; connect again with a new token. */
  unauthorized: [info: { code: number }];
  /** A frame that is not one of the contract's (skipped). */
  invalid_frame: [text: string];
};

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'waiting' | 'closed';

/** Replayed frames are recognised by exact cursor when cursors cannot be ordered (another server's format). */
const RECENT_CURSORS = 1_000;

/**
 * One user's realtime connection: WebSocket first, SSE when the WebSocket is missing or does not open;
 * reconnects with full-jitter backoff and resumes after the last cursor it handled, dropping what a
 * resume replays twice, so each cursor frame reaches the listeners once, in order.
 */
export class RealtimeConnection extends Emitter<RealtimeEvents> {
  readonly #options: RealtimeOptions;
  readonly #WebSocket: WebSocketConstructor | undefined;
  readonly #EventSource: EventSourceConstructor | undefined;
  readonly #typing: TypingThrottle;
  #state: ConnectionState = 'idle';
  #kind: TransportKind;
  #transport: Transport | undefined;
  #attempt = 0;
  #cursor: string | undefined;
  #vector: CursorVector | undefined;
  #recent: string[] = [];
  #duplicates = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #ping: ReturnType<typeof setInterval> | undefined;
  #pongDeadline: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RealtimeOptions) {
    super();
    this.#options = options;
    this.#WebSocket = options.WebSocket === null ? undefined : (options.WebSocket ?? globalWebSocket());
    this.#EventSource = options.EventSource === null ? undefined : (options.EventSource ?? globalEventSource());
    if (!this.#WebSocket && !this.#EventSource) throw new TypeError('No WebSocket or EventSource: pass one (in Node, `ws`\'s WebSocket).');
    this.#kind = this.#WebSocket ? 'websocket' : 'sse';
    this.#typing = new TypingThrottle((frame) => this.send(frame), options.typing);
    if (options.since !== undefined) this.#accept(options.since);
  }

  /** The last cursor handled: store it to resume after a restart (`since`). */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get transport(): TransportKind | undefined {
    return this.#state === 'open' ? this.#transport?.kind : undefined;
  }

  /** Frames dropped because an earlier one already covered their cursor. */
  get duplicatesDropped(): number {
    return this.#duplicates;
  }

  connect(): this {
    if (this.#state === 'idle') this.#open();
    return this;
  }

  /** Closes for good (no reconnect). */
  close(): void {
    this.#stop();
  }

  /** A keystroke in the conversation with `target`: sends `typing_started` at most once per throttle window. */
  typing(target: TypingTarget): void {
    this.#typing.keystroke(target);
  }

  /** The user stopped typing (sent the message, left the conversation). */
  stopTyping(target: TypingTarget): void {
    this.#typing.stop(target);
  }

  /** Sends a client frame; false when it could not (not open, or on SSE, which is one-way). */
  send(frame: ClientFrame): boolean {
    return this.#state === 'open' && this.#transport !== undefined && this.#transport.send(JSON.stringify(frame));
  }

  #open(): void {
    this.#state = 'connecting';
    const url = realtimeUrl(this.#options.baseUrl, this.#kind, { appId: this.#options.appId, authToken: this.#options.authToken, since: this.#cursor });
    const events = {
      opened: () => transport === this.#transport && this.#opened(transport),
      frame: (text: string) => transport === this.#transport && this.#frame(text),
      closed: (info: { code?: number; reason?: string; opened: boolean }) => transport === this.#transport && this.#closed(transport, info),
    };
    const transport: Transport =
      this.#kind === 'websocket' ? openWebSocket(this.#WebSocket!, url, events) : openEventSource(this.#EventSource!, url, events);
    this.#transport = transport;
  }

  #opened(transport: Transport): void {
    this.#state = 'open';
    this.#attempt = 0;
    if (transport.kind === 'websocket') this.#startPing();
    this.emit('open', { transport: transport.kind, ...(this.#cursor !== undefined ? { resumedFrom: this.#cursor } : {}) });
  }

  #frame(text: string): void {
    if (this.#pongDeadline !== undefined) clearTimeout(this.#pongDeadline);
    this.#pongDeadline = undefined;
    const frame = parseServerFrame(text);
    if (!frame) return this.emit('invalid_frame', text);
    if (isCursorFrame(frame)) {
      if (this.#covered(frame)) {
        this.#duplicates += 1;
        return;
      }
      this.#accept(frame.cursor);
    } else if (frame.type === 'resync_required') {
      // The server starts over: what came before is for REST to fill in, and the order starts anew. Without a
      // cursor the old one stays the resume point (a reconnect before the next frame asks for a resync again).
      this.#vector = undefined;
      this.#recent = [];
      if (frame.cursor !== undefined) this.#accept(frame.cursor);
    }
    this.#dispatch(frame);
  }

  #covered(frame: CursorFrame): boolean {
    const vector = decodeRealtimeCursor(frame.cursor);
    if (vector && this.#vector) return cursorCovers(this.#vector, vector);
    return this.#recent.includes(frame.cursor);
  }

  #accept(cursor: string): void {
    this.#cursor = cursor;
    this.#vector = decodeRealtimeCursor(cursor);
    this.#recent.push(cursor);
    if (this.#recent.length > RECENT_CURSORS) this.#recent.shift();
  }

  #dispatch(frame: ServerFrame): void {
    if (frame.type === 'pong') return;
    if (frame.type === 'resync_required') return this.emit('resync_required', frame);
    // Each data frame goes to the listeners of its own type: RealtimeEvents pairs them.
    (this.emit as (type: string, data: unknown, frame: ServerFrame) => void)(frame.type, frame.data, frame);
  }

  #closed(transport: Transport, info: { code?: number; reason?: string; opened: boolean }): void {
    this.#detach();
    if (info.opened) this.emit('disconnected', { transport: transport.kind, ...(info.code !== undefined ? { code: info.code, reason: info.reason } : {}) });
    if (info.code === REALTIME_CLOSE_TOKEN_REVOKED) return this.#unauthorized(REALTIME_CLOSE_TOKEN_REVOKED);
    // Too slow: the server dropped us to protect itself, not because it is in trouble; come back now.
    if (info.code === REALTIME_CLOSE_TOO_SLOW) return this.#reconnectIn(0);
    this.#state = 'waiting';
    void this.#tokenRefused(!info.opened || transport.kind === 'sse').then((refused) => {
      if (this.#state !== 'waiting') return;
      if (refused) return this.#unauthorized(401);
      if (!info.opened) this.#kind = this.#alternative();
      this.#reconnectIn(backoffDelay(this.#attempt++, this.#options.backoff));
    });
  }

  /** A WebSocket that never opened: try SSE next time (and back), where the other one exists. */
  #alternative(): TransportKind {
    if (this.#kind === 'websocket') return this.#EventSource ? 'sse' : 'websocket';
    return this.#WebSocket ? 'websocket' : 'sse';
  }

  #reconnectIn(delayMs: number): void {
    this.#state = 'waiting';
    this.emit('reconnecting', { attempt: this.#attempt, delayMs, transport: this.#kind });
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#state === 'waiting') this.#open();
    }, delayMs);
  }

  /**
   * Neither a browser WebSocket nor an EventSource says why it did not open, so one plain request to
   * the SSE path asks: 401 means the token is dead and retrying cannot help.
   */
  async #tokenRefused(ask: boolean): Promise<boolean> {
    const fetchImpl = this.#options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (!ask || !fetchImpl) return false;
    const url = realtimeUrl(this.#options.baseUrl, 'sse', { appId: this.#options.appId, authToken: this.#options.authToken, since: this.#cursor });
    const abort = new AbortController();
    try {
      const response = await fetchImpl(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
      return response.status === 401;
    } catch {
      return false;
    } finally {
      abort.abort();
    }
  }

  #unauthorized(code: number): void {
    this.#stop();
    this.emit('unauthorized', { code });
  }

  #startPing(): void {
    const interval = this.#options.pingIntervalMs ?? 25_000;
    const timeout = this.#options.pongTimeoutMs ?? 10_000;
    this.#ping = setInterval(() => {
      if (!this.send({ type: 'ping' }) || this.#pongDeadline !== undefined) return;
      this.#pongDeadline = setTimeout(() => {
        // Silent past the deadline: a half-open connection. Drop it and resume on a new one.
        const transport = this.#transport;
        this.#detach();
        transport?.close();
        if (transport) this.emit('disconnected', { transport: transport.kind });
        this.#reconnectIn(backoffDelay(this.#attempt++, this.#options.backoff));
      }, timeout);
    }, interval);
  }

  /** Forgets the current transport and its timers; its late events are ignored. */
  #detach(): void {
    if (this.#ping !== undefined) clearInterval(this.#ping);
    if (this.#pongDeadline !== undefined) clearTimeout(this.#pongDeadline);
    this.#ping = this.#pongDeadline = undefined;
    this.#transport = undefined;
    this.#typing.clear();
  }

  #stop(): void {
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    const transport = this.#transport;
    this.#detach();
    transport?.close();
    this.#state = 'closed';
  }
}
