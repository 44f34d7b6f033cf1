import { setTimeout as sleep } from 'node:timers/promises';
import { decodeConsistencyToken, encodeConsistencyToken } from '@chat/contracts';
import { inject } from 'vitest';
import { checkResponse } from './responseContract.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  apiKey?: string | null;
  appId?: string | null;
  onBehalfOf?: string;
  body?: unknown;
  /** Sent as is, for malformed-JSON cases. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another gateway than the suite's (a second replica the test started). */
  baseUrl?: string;
}

export async function call<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['apikey'] = options.apiKey;
  if (options.appId) headers['appId'] = options.appId;
  if (options.onBehalfOf !== undefined) headers['onBehalfOf'] = options.onBehalfOf;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${options.baseUrl ?? inject('gatewayUrl')}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  checkResponse(method, path, response.status, parsed);
  return { status: response.status, body: parsed, headers: response.headers };
}

export interface TestApp {
  appId: string;
  fullAccessKey: string;
  authOnlyKey: string;
  /** A chat call as this app with its REST (fullAccess) key unless told otherwise. */
  call<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

export function managementHeaders(): Record<string, string> {
  return { key: inject('managementKey'), secret: inject('managementSecret') };
}

export async function createApp(name = 'test app'): Promise<TestApp> {
  const response = await call('POST', '/apps', { headers: managementHeaders(), body: { name, region: 'us' } });
  if (response.status !== 200) throw new Error(`create app failed: ${response.status} ${JSON.stringify(response.body)}`);
  const data = response.body.data as { id: string; apiKeys: Record<string, { apiKey: string; scope: string }> };
  const keys = Object.values(data.apiKeys);
  const fullAccessKey = keys.find((k) => k.scope === 'fullAccess')?.apiKey;
  const authOnlyKey = keys.find((k) => k.scope === 'authOnly')?.apiKey;
  if (!fullAccessKey || !authOnlyKey) throw new Error(`create app returned no keys: ${JSON.stringify(data)}`);
  return {
    appId: data.id,
    fullAccessKey,
    authOnlyKey,
    call: (method, path, options = {}) =>
      call(method, path, { appId: data.id, apiKey: fullAccessKey, ...options }),
  };
}

/**
 * The app as a client that carries its writes' consistency tokens (merged) on every later request, as
 * an SDK reading its own writes across replicas would: a setting changed on one messages replica then
 * applies to a send handled by another before that replica's watch has seen the change.
 */
export function carryingTokens(app: TestApp): TestApp {
  const written = new Map<string, number>();
  return {
    ...app,
    call: async (method, path, options = {}) => {
      const headers = written.size > 0 ? { ...options.headers, 'x-consistency-token': encodeConsistencyToken(written) } : options.headers;
      const response = await app.call(method, path, { ...options, ...(headers ? { headers } : {}) });
      const token = response.headers.get('x-consistency-token');
      for (const [stream, version] of (token && decodeConsistencyToken(token)) || []) written.set(stream, Math.max(written.get(stream) ?? 0, version));
      return response;
    },
  };
}

export async function createUser(app: TestApp, uid: string, name = uid): Promise<void> {
  const response = await app.call('POST', '/v3/users', { body: { uid, name } });
  if (response.status !== 200) throw new Error(`create user ${uid}: ${response.status} ${JSON.stringify(response.body)}`);
}

/** Polls until `check` passes or the time is up; returns the last value. Events propagate asynchronously. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await sleep(25);
    value = await read();
  }
  return value;
}

/** Sends a text message and waits until the sender's conversation with the receiver is readable. */
export async function converse(app: TestApp, from: string, to: string, text = 'hello'): Promise<ApiResponse> {
  const sent = await app.call('POST', '/v3/messages', {
    onBehalfOf: from,
    body: { receiver: to, receiverType: 'user', type: 'text', data: { text } },
  });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const messageId = (sent.body as { data: { id: string } }).data.id;
  for (const owner of [from, to]) {
    const peer = owner === from ? to : from;
    const readable = await eventually(
      () => app.call('GET', `/v3/users/${peer}/conversation`, { onBehalfOf: owner }),
      (r) => r.status === 200 && (r.body as { data: { lastMessage?: { id: string } } }).data.lastMessage?.id === messageId,
    );
    if (readable.status !== 200) throw new Error(`conversation never became readable for ${owner}`);
  }
  return sent;
}
