import { realtimePaths, serverFrameTypes } from '@chat/contracts/realtime';

/*
 * The two ways a connection reaches the realtime channel, behind one small interface. Only the
 * members both the browsers' and the `ws` package's classes have are used, so either can be passed.
 */

/** A handler type checked bivariantly, so implementations with richer event types fit. */
type Handler<E> = { bivariance(event: E): void }['bivariance'];

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface EventSourceLike {
  readonly readyState: number;
  close(): void;
  addEventListener(type: string, listener: Handler<{ data: string }>): void;
  onopen: Handler<unknown> | null;
  onerror: Handler<unknown> | null;
}
export type EventSourceConstructor = new (url: string) => EventSourceLike;

export type TransportKind = 'websocket' | 'sse';

export interface TransportEvents {
  opened(): void;
  frame(text: string): void;
  /** `opened`: whether it had opened before it closed (a failure to open says nothing of the server's frames). */
  closed(info: { code?: number; reason?: string; opened: boolean }): void;
}

export interface Transport {
  readonly kind: TransportKind;
  /** False when the transport cannot send (SSE is one-way) or is not open. */
  send(text: string): boolean;
  close(): void;
}

const OPEN = 1;
const CLOSED = 2;

export function openWebSocket(Impl: WebSocketConstructor, url: string, events: TransportEvents): Transport {
  const socket = new Impl(url);
  let opened = false;
  socket.onopen = () => {
    opened = true;
    events.opened();
  };
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') events.frame(event.data);
  };
  // Every failure ends in a close event; the error event carries nothing more a client could act on.
  socket.onerror = () => undefined;
  socket.onclose = (event) => events.closed({ code: event.code, reason: event.reason, opened });
  return {
    kind: 'websocket',
    send(text) {
      if (socket.readyState !== OPEN) return false;
      socket.send(text);
      return true;
    },
    close() {
      socket.close(1000, 'client closed');
    },
  };
}

/**
 * An EventSource reconnects by itself after a dropped stream, sending `Last-Event-ID` (the last cursor
 * it saw), so only its giving up (`CLOSED`: a refused request) is reported as a close.
 */
export function openEventSource(Impl: EventSourceConstructor, url: string, events: TransportEvents): Transport {
  const source = new Impl(url);
  let opened = false;
  source.onopen = () => {
    opened = true;
    events.opened();
  };
  for (const type of serverFrameTypes) source.addEventListener(type, (event) => events.frame(event.data));
  source.onerror = () => {
    if (source.readyState === CLOSED) events.closed({ opened });
  };
  return {
    kind: 'sse',
    send: () => false,
    close: () => source.close(),
  };
}

/** The channel's URL for a transport: the tenant, the token and the resume cursor in the query. */
export function realtimeUrl(baseUrl: string, kind: TransportKind, query: { appId?: string; authToken: string; since?: string }): string {
  const url = new URL(kind === 'websocket' ? realtimePaths.websocket : realtimePaths.events, baseUrl);
  if (kind === 'websocket') url.protocol = url.protocol === 'https:' ? 'wss:' : url.protocol === 'http:' ? 'ws:' : url.protocol;
  if (query.appId !== undefined) url.searchParams.set('appId', query.appId);
  url.searchParams.set('authToken', query.authToken);
  if (query.since !== undefined) url.searchParams.set('since', query.since);
  return url.toString();
}

/** The platform's own class, where there is one (browsers; Node ≥ 22 for WebSocket). */
export function globalWebSocket(): WebSocketConstructor | undefined {
  return (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
}

export function globalEventSource(): EventSourceConstructor | undefined {
  return (globalThis as { EventSource?: EventSourceConstructor }).EventSource;
}
