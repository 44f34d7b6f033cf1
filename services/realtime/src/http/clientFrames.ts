import type { Connection } from '../app/connections.js';

/**
 * What a client may send. `ping` is answered here; the typing frames go to their `handlers` (ADR 0077:
 * checked, then relayed over Redis, never the event store).
 */
export type ClientFrameHandler = (connection: Connection, frame: Record<string, unknown>) => void;

const PONG = '{"type":"pong"}';

export class ClientFrames {
  constructor(private readonly handlers: ReadonlyMap<string, ClientFrameHandler> = new Map()) {}

  handle(connection: Connection, text: string | null): void {
    let frame: unknown = null;
    try {
      frame = text === null ? null : JSON.parse(text);
    } catch {
      frame = null;
    }
    const type = typeof frame === 'object' && frame !== null ? (frame as Record<string, unknown>)['type'] : undefined;
    if (type === 'ping') return connection.send(PONG, 'pong');
    const handler = typeof type === 'string' ? this.handlers.get(type) : undefined;
    if (handler) return handler(connection, frame as Record<string, unknown>);
    connection.send(JSON.stringify({ type: 'error', data: { code: 'ERR_BAD_FRAME', message: 'A client frame is JSON with a known "type" (ping, typing_started, typing_ended).' } }), 'error');
  }
}
