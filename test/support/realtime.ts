import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { unusedPort } from '@chat/devstack';
import { inject } from 'vitest';
import WebSocket from 'ws';
import type { TestApp } from './api.js';
import { checkResponse } from './responseContract.js';

export interface Frame {
  type: string;
  cursor?: string;
  data?: any;
}

/** A realtime client over `ws`, as a browser would connect (tenant and token in the query). */
export interface RealtimeClient {
  frames: Frame[];
  /** The next frame (from the first not yet taken) that passes `match`; fails after `timeoutMs`. */
  next(match: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Whether a frame that passes `match` arrives within `ms` (for "nothing reaches them"). */
  receives(match: (frame: Frame) => boolean, ms?: number): Promise<boolean>;
  send(frame: unknown): void;
  closed: Promise<{ code: number; at: number }>;
  close(): Promise<void>;
}

export async function authToken(app: TestApp, uid: string): Promise<string> {
  const response = await app.call('POST', `/v3/users/${uid}/auth_tokens`, { body: { force: true } });
  if (response.status !== 200) throw new Error(`auth token for ${uid}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.authToken as string;
}

export function realtimeUrl(query: Record<string, string>, path = '/v3/realtime', gatewayUrl = inject('gatewayUrl')): string {
  const base = gatewayUrl.replace(/^http/, 'ws');
  return `${base}${path}?${new URLSearchParams(query).toString()}`;
}

/** The refusal of an upgrade: its status and CometChat error body, checked against docs/openapi.json like every answer. */
export function refusal(query: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(realtimeUrl(query));
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => undefined);
    socket.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        try {
          const body: unknown = text ? JSON.parse(text) : undefined;
          checkResponse('GET', '/v3/realtime', res.statusCode ?? 0, body);
          resolve({ status: res.statusCode ?? 0, body });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  });
}

/** `gatewayUrl`: another gateway than the suite's (one the test started). */
export async function connect(appId: string, token: string, since?: string, gatewayUrl?: string): Promise<RealtimeClient> {
  const socket = new WebSocket(realtimeUrl({ appId, authToken: token, ...(since !== undefined ? { since } : {}) }, undefined, gatewayUrl));
  const frames: Frame[] = [];
  let taken = 0;
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as Frame));
  const closed = new Promise<{ code: number; at: number }>((resolve) => socket.on('close', (code) => resolve({ code, at: Date.now() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const find = (match: (frame: Frame) => boolean) => {
    for (let i = taken; i < frames.length; i++) {
      if (match(frames[i]!)) {
        taken = i + 1;
        return frames[i];
      }
    }
    return undefined;
  };
  return {
    frames,
    async next(match, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`);
        await sleep(20);
      }
    },
    async receives(match, ms = 1_500) {
      await sleep(ms);
      return frames.some(match);
    },
    send: (frame) => socket.send(JSON.stringify(frame)),
    closed,
    async close() {
      socket.close();
      await closed;
    },
  };
}

/**
 * One more realtime replica, a process of this test on the suite's Kafka, store and Redis (the
 * suite's own replicas are the global setup's, which a test cannot kill): for crash tests, behind a
 * gateway the test starts with this replica in its `REALTIME_URL`.
 */
/** Replicas started by `startRealtimeReplica` and not killed yet. */
const liveReplicas = new Set<() => Promise<void>>();

/**
 * Kills every replica a test started and has not killed (a test that timed out leaves its own): the
 * file's `afterAll`, so no process outlives the suite and holds a port for the next run.
 */
export async function killStrayReplicas(): Promise<void> {
  await Promise.all([...liveReplicas].map((kill) => kill()));
}

export async function startRealtimeReplica(): Promise<{ url: string; kill(): Promise<void> }> {
  // Above the ephemeral range, tried by binding: no outgoing connection can be handed it meanwhile.
  const port = await unusedPort();
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../services/realtime/dist/main.js', import.meta.url))], {
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      KAFKA_BROKERS: inject('kafkaBrokers'),
      MONGO_URL: inject('mongoUrl'),
      MONGO_DB: `chat_realtime_${inject('databaseSuffix')}`,
      REDIS_URL: inject('redisUrl'),
    },
  });
  const exited = once(child, 'exit');
  const url = `http://127.0.0.1:${port}`;
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    liveReplicas.delete(kill);
  };
  liveReplicas.add(kill);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the realtime replica exited with ${child.exitCode} while starting`);
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return { url, kill };
  }
  await kill();
  throw new Error('the realtime replica did not become healthy within 60 s');
}
