import { EventSource } from 'eventsource';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RealtimeConnection } from './realtimeConnection.js';
import type { RealtimeOptions } from './realtimeConnection.js';
import { RealtimeTestServer } from './realtimeTestServer.js';

let server: RealtimeTestServer;
const open: RealtimeConnection[] = [];

beforeEach(async () => {
  server = await RealtimeTestServer.start();
});
afterEach(async () => {
  for (const connection of open.splice(0)) connection.close();
  await server.stop();
});

function connect(options: Partial<RealtimeOptions> = {}): RealtimeConnection {
  const connection = new RealtimeConnection({ baseUrl: server.url, appId: 'app1', authToken: 'token-alice', WebSocket, EventSource: null, backoff: { baseMs: 20, capMs: 80 }, ...options });
  open.push(connection);
  return connection.connect();
}

async function until(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const texts = (connection: RealtimeConnection): string[] => {
  const seen: string[] = [];
  connection.on('message', (message) => seen.push(String(message.data['text'])));
  return seen;
};

describe('RealtimeConnection over WebSocket', () => {
  it('resumes after the last cursor it handled and drops what the resume replays twice', async () => {
    const client = connect();
    const seen = texts(client);
    const first = await server.connected(1);
    expect(first.since).toBeNull();
    const frames = [server.nextMessage(), server.nextMessage(), server.nextMessage()];
    for (const frame of frames) first.send(frame);
    await until(() => seen.length === 3, 'three messages');
    first.close(1011);

    const second = await server.connected(2);
    expect(second.since).toBe(frames[2]!.cursor);
    // A server that replays from an older point: the client shows each message once, in order.
    second.send(server.messageAt(2));
    second.send(server.messageAt(3));
    second.send(server.nextMessage());
    await until(() => seen.length === 4, 'the fourth message');
    expect(seen).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(client.duplicatesDropped).toBe(2);
    expect(client.cursor).toBe(server.messageAt(4).cursor);
  });

  it('starts from a cursor the app kept', async () => {
    const kept = server.messageAt(7).cursor;
    connect({ since: kept });
    expect((await server.connected(1)).since).toBe(kept);
  });

  it('retries a server that refuses with exponential backoff, capped', async () => {
    server.refuseUpgrade = 503;
    const client = connect({ backoff: { baseMs: 20, capMs: 80, random: () => 0.999 } });
    const delays: number[] = [];
    client.on('reconnecting', ({ delayMs }) => delays.push(delayMs));
    const upgrades = () => server.attempts.filter((a) => a.kind === 'websocket');
    await until(() => upgrades().length >= 5, 'five attempts');
    expect(delays.slice(0, 4)).toEqual([19, 39, 79, 79]);
    const gaps = upgrades().slice(1, 5).map((attempt, i) => attempt.at - upgrades()[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(delays[i]! - 2));
    // Once the server accepts again, the connection opens and the backoff starts over.
    server.refuseUpgrade = undefined;
    await until(() => client.state === 'open', 'the connection to open');
    expect(client.transport).toBe('websocket');
  });

  it('stops for good on 4401 and says the token is dead', async () => {
    const client = connect();
    const dead: number[] = [];
    client.on('unauthorized', ({ code }) => dead.push(code));
    (await server.connected(1)).close(4401);
    await until(() => dead.length === 1, 'unauthorized');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(dead).toEqual([4401]);
    expect(client.state).toBe('closed');
    expect(server.attempts).toHaveLength(1);
  });

  it('tells a refused token (401 on the upgrade) from a server that is down', async () => {
    const client = connect({ authToken: 'revoked-token' });
    const dead: number[] = [];
    client.on('unauthorized', ({ code }) => dead.push(code));
    await until(() => dead.length === 1, 'unauthorized');
    expect(dead).toEqual([401]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.attempts.filter((a) => a.kind === 'websocket')).toHaveLength(1);
  });

  it('comes back at once with its cursor after 4008 (too slow)', async () => {
    const client = connect({ backoff: { baseMs: 5_000, capMs: 5_000 } });
    const delays: number[] = [];
    client.on('reconnecting', ({ delayMs }) => delays.push(delayMs));
    const first = await server.connected(1);
    const frame = server.nextMessage();
    first.send(frame);
    await until(() => client.cursor === frame.cursor, 'the frame');
    first.close(4008);
    expect((await server.connected(2)).since).toBe(frame.cursor);
    expect(delays).toEqual([0]);
  });

  it('takes resync_required as the new starting point and tells the app', async () => {
    const client = connect();
    const seen = texts(client);
    const resyncs: (string | undefined)[] = [];
    client.on('resync_required', (frame) => resyncs.push(frame.cursor));
    const connection = await server.connected(1);
    connection.send(server.messageAt(5));
    // The server lost its window (another deployment, say): offsets start lower, and the app re-reads.
    const restart = server.messageAt(1).cursor;
    connection.send({ type: 'resync_required', cursor: restart, data: { reason: 'cursor_unknown' } });
    connection.send(server.messageAt(2));
    await until(() => seen.length === 2, 'two messages');
    // A bare resync (no cursor) starts the order over too, and keeps the last cursor to resume from.
    connection.send({ type: 'resync_required' });
    connection.send(server.messageAt(1));
    await until(() => seen.length === 3, 'the message after the bare resync');
    expect(resyncs).toEqual([restart, undefined]);
    expect(seen).toEqual(['m5', 'm2', 'm1']);
    expect(client.cursor).toBe(server.messageAt(1).cursor);
  });

  it('delivers ephemeral frames and reports frames outside the contract', async () => {
    const client = connect();
    const refused: string[] = [];
    client.on('error', ({ code }) => refused.push(code));
    const typing: string[] = [];
    const presence: string[] = [];
    const invalid: string[] = [];
    client.on('typing_started', (data) => typing.push(data.sender));
    client.on('presence', (data) => presence.push(`${data.uid}:${data.status}`));
    client.on('invalid_frame', (text) => invalid.push(text));
    const connection = await server.connected(1);
    connection.send({ type: 'typing_started', data: { sender: 'bob', receiver: 'alice', receiverType: 'user' } });
    connection.send({ type: 'presence', data: { uid: 'bob', status: 'online', lastActiveAt: 1 } });
    connection.send({ type: 'error', data: { code: 'ERR_BAD_FRAME', message: 'unknown type' } });
    connection.send({ type: 'message', data: {} } as never);
    await until(() => invalid.length === 1, 'the invalid frame');
    expect(refused).toEqual(['ERR_BAD_FRAME']);
    expect(typing).toEqual(['bob']);
    expect(presence).toEqual(['bob:online']);
  });

  it('sends one typing_started per throttle window and typing_ended when idle', async () => {
    const client = connect({ typing: { throttleMs: 10_000, idleMs: 60 } });
    const connection = await server.connected(1);
    await until(() => client.state === 'open', 'open');
    const bob = { receiver: 'bob', receiverType: 'user' as const };
    for (let i = 0; i < 5; i += 1) client.typing(bob);
    client.typing({ receiver: 'team', receiverType: 'group' });
    await until(() => connection.received.length === 4, 'two starts and two ends');
    expect(connection.received).toEqual([
      { type: 'typing_started', ...bob },
      { type: 'typing_started', receiver: 'team', receiverType: 'group' },
      { type: 'typing_ended', ...bob },
      { type: 'typing_ended', receiver: 'team', receiverType: 'group' },
    ]);
  });

  it('pings to keep the connection, and replaces one that stops answering', async () => {
    const client = connect({ pingIntervalMs: 30, pongTimeoutMs: 300 });
    const first = await server.connected(1);
    await until(() => first.received.filter((f: any) => f.type === 'ping').length >= 3, 'three pings');
    expect(client.state).toBe('open');
    server.answerPings = false;
    const second = await server.connected(2);
    expect(second.kind).toBe('websocket');
  });
});

describe('RealtimeConnection over SSE', () => {
  it('falls back to SSE when the WebSocket does not open, and resumes by Last-Event-ID', async () => {
    server.refuseUpgrade = 502;
    const client = connect({ EventSource });
    const seen = texts(client);
    const transports: string[] = [];
    client.on('open', ({ transport }) => transports.push(transport));
    await until(() => client.state === 'open', 'the stream to open');
    const stream = await server.live();
    expect(stream.kind).toBe('sse');
    const frames = [server.nextMessage(), server.nextMessage()];
    for (const frame of frames) stream.send(frame);
    await until(() => seen.length === 2, 'two messages over SSE');
    stream.close();
    // EventSource reconnects by itself with the last id it saw; a replay is dropped.
    await until(() => stream.gone && server.connections.at(-1) !== stream, 'the reconnect');
    const again = await server.live();
    expect(again.lastEventId).toBe(frames[1]!.cursor);
    again.send(server.messageAt(2));
    again.send(server.nextMessage());
    await until(() => seen.length === 3, 'the third message');
    expect(seen).toEqual(['m1', 'm2', 'm3']);
    expect(transports).toEqual(['sse', 'sse']);
    expect(client.send({ type: 'ping' })).toBe(false);
  });

  it('uses SSE when there is no WebSocket, and stops when the token is refused', async () => {
    const client = connect({ WebSocket: null, EventSource, authToken: 'revoked-token' });
    const dead: number[] = [];
    client.on('unauthorized', ({ code }) => dead.push(code));
    await until(() => dead.length === 1, 'unauthorized');
    expect(server.attempts.every((a) => a.kind === 'sse')).toBe(true);
    expect(dead).toEqual([401]);
  });
});
