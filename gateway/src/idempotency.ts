import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Upstream } from './config.js';
import type { BufferedResponse, UpstreamProxy } from './proxy.js';
import { sendError } from './proxy.js';
import { openReplay, replayKey, sealReplay } from './replaySeal.js';

/**
 * `Idempotency-Key` on a POST/PUT/PATCH/DELETE (beyond CometChat): the first answer is stored for
 * 24 h per app and API key and replayed for a retry with the same key and the same request; the
 * same key with a different request is refused (422). Concurrent duplicates wait for the first
 * one's stored answer instead of running again, so they produce exactly one event.
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const IDEMPOTENT_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const MAX_BODY_BYTES = 1024 * 1024;
/** How long a duplicate waits for the first request's answer before giving up (upstream timeout + slack). */
const POLL_MS = 20;

/** Shared storage of claims and answers (Redis `SET NX` in production). */
export interface IdempotencyStore {
  /** Stores `value` only if `key` is free; true when this caller now holds it. */
  claim(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  read(key: string): Promise<string | null>;
  save(key: string, value: string, ttlSeconds: number): Promise<void>;
  release(key: string): Promise<void>;
}

/** An answer as sealed: the body base64-encoded, so any bytes survive JSON. */
type StoredResponse = Omit<BufferedResponse, 'body'> & { body: string };
/**
 * A record in the store: the answer only sealed (`replaySeal.ts`); an answer may be an auth token.
 * `response` is the unsealed form written before ADR 0039, read until its 24 h have passed.
 */
type StoredRecord =
  | { state: 'pending'; fingerprint: string }
  | { state: 'done'; fingerprint: string; sealed: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

function answerOf(record: Extract<StoredRecord, { state: 'done' }>, key: Buffer, storeKey: string): StoredResponse {
  if ('response' in record) return record.response;
  return JSON.parse(openReplay(key, record.sealed, storeKey).toString('utf8')) as StoredResponse;
}

/** Response headers worth replaying: the answer's own, not the hop's. */
const REPLAYED_HEADERS = ['content-type', 'deprecation', 'link'];

function fingerprintOf(req: IncomingMessage, onBehalfOf: string | undefined, body: Buffer): string {
  return createHash('sha256')
    .update(`${req.method ?? ''}\n${req.url ?? ''}\n${onBehalfOf ?? ''}\n`)
    .update(body)
    .digest('hex');
}

export function idempotencyKeyOf(req: IncomingMessage): string | undefined | null {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? raw.trim() : undefined;
  return value !== undefined && KEY_PATTERN.test(value) ? value : null;
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, response: StoredResponse, requestId: string, replayed: boolean): void {
  if (res.destroyed) return;
  const body = Buffer.from(response.body, 'base64');
  const headers: OutgoingHttpHeaders = { 'content-length': body.length, 'x-request-id': requestId };
  for (const name of REPLAYED_HEADERS) if (response.headers[name] !== undefined) headers[name] = response.headers[name];
  if (replayed) headers['idempotent-replayed'] = 'true';
  res.writeHead(response.status, headers);
  res.end(body);
}

export class IdempotentForwarder {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly proxy: UpstreamProxy,
    private readonly options: { waitLimitMs: number; onError: (error: unknown, requestId: string) => void },
  ) {}

  /** Runs the request at most once per (app, API key, idempotency key); never rejects. */
  async forward(
    req: IncomingMessage,
    res: ServerResponse,
    upstream: Upstream,
    headers: OutgoingHttpHeaders,
    scope: { appId: string; keyId: string; idempotencyKey: string; onBehalfOf: string | undefined },
    requestId: string,
  ): Promise<void> {
    try {
      const body = await readBody(req);
      if (body === null) return sendError(res, 'ERR_PAYLOAD_TOO_LARGE', 'A request with an Idempotency-Key is at most 1 MiB.', requestId);
      const fingerprint = fingerprintOf(req, scope.onBehalfOf, body);
      const digest = createHash('sha256').update(scope.idempotencyKey).digest('hex');
      const storeKey = `gateway:idem:${scope.appId}:${scope.keyId}:${digest}`;
      const key = replayKey(scope);
      const deadline = Date.now() + this.options.waitLimitMs;
      for (;;) {
        const pending: StoredRecord = { state: 'pending', fingerprint };
        if (await this.store.claim(storeKey, JSON.stringify(pending), IDEMPOTENCY_TTL_SECONDS)) {
          return await this.runFirst(req, res, upstream, headers, body, { storeKey, key }, fingerprint, requestId);
        }
        const raw = await this.store.read(storeKey);
        if (raw === null) continue; // the first attempt failed and let go of the key: claim it again
        const record = JSON.parse(raw) as StoredRecord;
        if (record.fingerprint !== fingerprint) {
          return sendError(res, 'ERR_IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request; use a new key.', requestId);
        }
        if (record.state === 'done') return reply(res, answerOf(record, key, storeKey), requestId, true);
        if (Date.now() >= deadline || res.destroyed) {
          if (!res.destroyed) sendError(res, 'ERR_UPSTREAM_TIMEOUT', 'The first request with this Idempotency-Key is still running; retry later.', requestId);
          return;
        }
        await sleep(POLL_MS);
      }
    } catch (error) {
      this.options.onError(error, requestId);
      if (!res.headersSent && !res.destroyed) sendError(res, 'ERR_UPSTREAM_UNAVAILABLE', 'The request could not be made idempotent right now; retry shortly.', requestId);
    }
  }

  private async runFirst(
    req: IncomingMessage,
    res: ServerResponse,
    upstream: Upstream,
    headers: OutgoingHttpHeaders,
    body: Buffer,
    { storeKey, key }: { storeKey: string; key: Buffer },
    fingerprint: string,
    requestId: string,
  ): Promise<void> {
    let response: BufferedResponse;
    try {
      response = await this.proxy.forwardBuffered(req, upstream, headers, body);
    } catch (error) {
      // Nothing is known about the outcome's answer: free the key so a retry runs again.
      await this.store.release(storeKey).catch(() => undefined);
      throw error;
    }
    const stored: StoredResponse = { ...response, body: response.body.toString('base64') };
    // A 5xx says nothing happened that a retry should not do again; 2xx-4xx answers are final.
    if (response.status >= 500) await this.store.release(storeKey);
    else {
      const done: StoredRecord = { state: 'done', fingerprint, sealed: sealReplay(key, Buffer.from(JSON.stringify(stored)), storeKey) };
      await this.store.save(storeKey, JSON.stringify(done), IDEMPOTENCY_TTL_SECONDS);
    }
    reply(res, stored, requestId, false);
  }
}
