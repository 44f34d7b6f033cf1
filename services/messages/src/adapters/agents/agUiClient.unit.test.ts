import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp, privateAddressPolicy } from '@chat/delivery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, runAgUiAgent } from './agUiClient.js';
import type { AgentCall } from './agUiClient.js';

/** How the loopback agent answers, by path. */
const behaviours: Record<string, (res: ServerResponse) => void> = {
  '/answer': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const delta of ['Hel', 'lo']) res.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', delta })}\n\n`);
    res.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED' })}\n\n`);
  },
  '/redirect': (res) => {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
  },
  '/flood': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = `data: ${JSON.stringify({ type: 'STATE_DELTA', delta: 'x'.repeat(16_000) })}\n\n`;
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  },
  '/long': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < 20; i++) res.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', delta: 'y'.repeat(100) })}\n\n`);
  },
  '/quiet': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED' })}\n\n`);
  },
};

let server: Server;
let base = '';
const seen: IncomingHttpHeaders[] = [];
const streamsClosed: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.on('close', () => streamsClosed.push(req.url ?? ''));
    behaviours[req.url ?? '']?.(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const http = new OutboundHttp({ policy: privateAddressPolicy('127.0.0.0/8'), timeoutMs: 5_000 });
const limits = { idleMs: 300, maxStreamBytes: 256 * 1024, maxReplyChars: 1_000 };
const call = (path: string, headers: Record<string, string> = {}, timeoutMs = 3_000): AgentCall => ({
  url: `${base}${path}`,
  headers,
  timeoutMs,
  input: { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} },
});

async function failure(promise: Promise<string>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentFailure);
  return (error as AgentFailure).message;
}

describe('runAgUiAgent', () => {
  it('returns the streamed text, without the headers a tenant may not set', async () => {
    seen.length = 0;
    const headers = { authorization: 'Bearer t', 'x-chat-app-id': 'other-app', 'X-Chat-Scope': 'fullAccess', 'proxy-authorization': 'x' };
    expect(await runAgUiAgent(http, call('/answer', headers), limits)).toBe('Hello');
    expect(seen[0]).toMatchObject({ authorization: 'Bearer t' });
    expect(Object.keys(seen[0]!).filter((name) => name.startsWith('x-chat-') || name.startsWith('proxy-'))).toEqual([]);
  });

  it('treats a redirect as the answer, never a hop', async () => {
    expect(await failure(runAgUiAgent(http, call('/redirect'), limits))).toBe('the agent answered HTTP 302');
  });

  it('aborts a stream past its byte cap', async () => {
    const started = performance.now();
    expect(await failure(runAgUiAgent(http, call('/flood'), limits))).toBe('the agent sent more than 262144 bytes');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('aborts a reply past the message text limit', async () => {
    expect(await failure(runAgUiAgent(http, call('/long'), limits))).toBe("the agent's reply is longer than 1000 characters");
  });

  it('aborts a stream that goes quiet, and one that outlasts the run', async () => {
    streamsClosed.length = 0;
    expect(await failure(runAgUiAgent(http, call('/quiet'), limits))).toBe('the agent sent nothing for 0 s');
    expect(await failure(runAgUiAgent(http, call('/quiet', {}, 200), { ...limits, idleMs: 5_000 }))).toBe('the agent did not finish within 0 s');
    // The agent's side of both runs is closed: nothing is left reading.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streamsClosed.filter((path) => path === '/quiet')).toHaveLength(2);
  });

  it('refuses an internal address before connecting', async () => {
    const production = new OutboundHttp({ policy: privateAddressPolicy('false'), timeoutMs: 1_000 });
    seen.length = 0;
    expect(await failure(runAgUiAgent(production, call('/answer'), limits))).toMatch(/^the agent's address is not allowed \(.*127\.0\.0\.1 is a loopback address/);
    expect(seen).toEqual([]);
    production.close();
  });
});
