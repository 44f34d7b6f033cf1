import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { keptAnswers } from './keptAnswers.js';
import { guardedLookup, urlRefusal } from './urlGuard.js';
import type { PrivateAddressPolicy, Resolver } from './urlGuard.js';

/** What a tenant's endpoint answered; `status` absent when it did not answer (refused, reset, timed out). */
export interface SendResult {
  status?: number;
  error?: string;
  latencyMs: number;
  /** At most `RESPONSE_PREFIX_CHARS` characters of the answer (delivery logs show them). */
  responsePrefix: string;
  /** The URL or an address it resolves to is one tenants may not reach: retrying will not help. */
  refused?: true;
}

export const RESPONSE_PREFIX_CHARS = 256;
/** Bytes of an answer read before the connection is dropped: a small answer keeps its socket alive, a flood costs nothing. */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024;

export interface OutboundHttpOptions {
  /** Which internal addresses the deployment lets tenant URLs reach (`TENANT_URLS_ALLOW_PRIVATE`). */
  policy: PrivateAddressPolicy;
  /** The whole exchange of a `post`, answer read to its end, must fit in this. */
  timeoutMs: number;
  /** Sockets per host: the per-endpoint concurrency bound. */
  maxSocketsPerHost?: number;
  maxAnswerBytes?: number;
  /** Name resolution (tests inject one); node's `dns.lookup` by default. */
  resolve?: Resolver;
}

/** A tenant URL (or one of the addresses it resolves to) that this deployment does not let tenants reach. */
export class RefusedUrl extends Error {
  override readonly name = 'RefusedUrl';
}

/**
 * The one way a tenant-supplied URL is called (webhooks, custom notification providers, agents):
 * node:http(s) with a lookup that classifies every resolved address, so the address checked is the
 * address connected to (fetch has no lookup hook); an address literal is checked before connecting;
 * redirects are never followed (node:http has no notion of them: a 3xx is the answer); answers are
 * read up to a byte cap and within a deadline.
 */
export class OutboundHttp {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;
  private readonly lookup: ReturnType<typeof guardedLookup>;
  private readonly maxAnswerBytes: number;
  /** A URL's refusal or its request options, worked out once per URL (a webhook's or provider's URL is called over and over). */
  private readonly targetOf = keptAnswers(KEPT_TARGETS, (url: string): Target => {
    const refusal = urlRefusal(url, this.options.policy);
    if (refusal) return { refusal };
    const parsed = new URL(url);
    return { secure: parsed.protocol === 'https:', options: urlToHttpOptions(parsed) };
  });

  constructor(private readonly options: OutboundHttpOptions) {
    const sockets = options.maxSocketsPerHost ?? 8;
    const agent = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets };
    this.http = new HttpAgent(agent);
    this.https = new HttpsAgent(agent);
    this.lookup = guardedLookup(options.policy, options.resolve);
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  }

  /**
   * POSTs a body and returns the answer's head with its body unread: for answers the caller streams
   * (an agent's events) and bounds itself. Rejects with `RefusedUrl` before any connection when the
   * URL or the address it resolves to is refused; `signal` ends the exchange at any point.
   */
  open(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<IncomingMessage> {
    const refusal = urlRefusal(url, this.options.policy);
    if (refusal) return Promise.reject(new RefusedUrl(`${url}: ${refusal}`));
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const options: RequestOptions = {
      method: 'POST',
      agent: secure ? this.https : this.http,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      signal,
      lookup: this.lookup,
    };
    return new Promise((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(target, options, resolve);
      request.on('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRREFUSED' ? new RefusedUrl(error.message) : error));
      request.end(body);
    });
  }

  /**
   * POSTs a JSON body and reads at most `maxAnswerBytes` of the answer, all within `timeoutMs`. The
   * per-call path of every delivery and custom provider call, so it is kept lean (ADR 0090): the URL is
   * checked and parsed once per URL (`targetOf`), one timer bounds the exchange (no abort signal and
   * its listeners), and the answer is read from the stream's events without copying its chunks.
   */
  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = this.targetOf(url);
    if ('refusal' in target) return Promise.resolve({ error: `${url}: ${target.refusal}`, latencyMs: elapsed(), responsePrefix: '', refused: true });
    const { timeoutMs } = this.options;
    const maxBytes = this.maxAnswerBytes;
    return new Promise<SendResult>((settle) => {
      let status: number | undefined;
      let timedOut = false;
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        settle(result);
      };
      const failed = (error: unknown) => {
        // The answer's 'close' follows every exchange: nothing to build once it has settled.
        if (settled) return;
        finish({
          ...(status !== undefined ? { status } : {}),
          error: timedOut ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error),
          latencyMs: elapsed(),
          responsePrefix: '',
          ...(error instanceof RefusedUrl ? { refused: true as const } : {}),
        });
      };
      const request = (target.secure ? httpsRequest : httpRequest)(
        {
          ...target.options,
          method: 'POST',
          agent: target.secure ? this.https : this.http,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          lookup: this.lookup,
        },
        (response) => {
          status = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          const answered = () => finish({ status: status!, latencyMs: elapsed(), responsePrefix: answerPrefix(chunks) });
          response.on('data', (chunk: Buffer) => {
            if (settled) return;
            const room = maxBytes - size;
            if (chunk.byteLength > room) {
              // Past the cap the connection is dropped: a flood costs a bounded buffer and one socket.
              chunks.push(chunk.subarray(0, room));
              answered();
              response.destroy();
              return;
            }
            chunks.push(chunk);
            size += chunk.byteLength;
          });
          response.on('end', answered);
          response.on('error', failed);
          response.on('close', () => failed(new Error('the answer ended before it was complete')));
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        failed(null);
        request.destroy();
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => failed(error.code === 'EADDRREFUSED' ? new RefusedUrl(error.message) : error));
      request.end(body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/** URLs whose check and parse a sender keeps. */
const KEPT_TARGETS = 1_000;

/** A tenant URL as `post` calls it: refused (and why), or the request options `node:http` takes. */
type Target = { refusal: string } | { secure: boolean; options: ReturnType<typeof urlToHttpOptions> };

/**
 * The first `RESPONSE_PREFIX_CHARS` characters of an answer. Only the bytes that can hold them are
 * decoded (a character is at most 4 bytes; a sequence cut at that end decodes past the prefix).
 */
function answerPrefix(chunks: readonly Buffer[]): string {
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return bytes.subarray(0, RESPONSE_PREFIX_CHARS * 4).toString('utf8').slice(0, RESPONSE_PREFIX_CHARS);
}

/**
 * Reads a body up to `maxBytes` and no further: past the cap the stream is destroyed (`cut`), so a
 * tenant's endpoint that answers without end costs a bounded buffer and one connection.
 */
export async function readAtMost(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      chunks.push(Buffer.from(chunk.subarray(0, room)));
      // Leaving the loop destroys a node stream and cancels a web stream.
      return { bytes: Buffer.concat(chunks), cut: true };
    }
    chunks.push(Buffer.from(chunk));
    size += chunk.byteLength;
  }
  return { bytes: Buffer.concat(chunks), cut: false };
}
