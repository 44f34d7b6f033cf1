import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isPrivateAddress } from '@chat/contracts';

/** What a receiver answered; `status` absent when it did not answer (refused, reset, timed out). */
export interface SendResult {
  status?: number;
  error?: string;
  latencyMs: number;
  /** At most this many characters of the answer are kept (the log shows them). */
  responsePrefix: string;
}

export const RESPONSE_PREFIX_CHARS = 256;

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Sockets per receiver host: the per-endpoint concurrency bound. */
  maxSocketsPerHost: number;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * POSTs webhook bodies over keep-alive connections. Unless private targets are allowed, the
 * resolved address is checked at connect time, so a public name that resolves to a private
 * address (DNS rebinding) is refused too.
 */
export class HttpSender {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor(private readonly options: HttpSenderOptions) {
    const agent = { keepAlive: true, maxSockets: options.maxSocketsPerHost, maxFreeSockets: options.maxSocketsPerHost };
    this.http = new HttpAgent(agent);
    this.https = new HttpsAgent(agent);
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve({ error: 'invalid URL', latencyMs: 0, responsePrefix: '' });
        return;
      }
      // An address literal never goes through the resolver, so it is checked here.
      if (!this.options.allowPrivate && isPrivateAddress(target.hostname)) {
        resolve({ error: `${target.hostname} is a private address`, latencyMs: 0, responsePrefix: '' });
        return;
      }
      const secure = target.protocol === 'https:';
      const options: RequestOptions = {
        method: 'POST',
        agent: secure ? this.https : this.http,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: this.options.timeoutMs,
        ...(this.options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      };
      const request = (secure ? httpsRequest : httpRequest)(target, options, (response: IncomingMessage) => {
        let prefix = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (prefix.length < RESPONSE_PREFIX_CHARS) prefix += chunk.slice(0, RESPONSE_PREFIX_CHARS - prefix.length);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, latencyMs: elapsed(), responsePrefix: prefix }));
        response.on('error', (error) => resolve({ status: response.statusCode ?? 0, error: error.message, latencyMs: elapsed(), responsePrefix: prefix }));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      request.on('error', (error) => resolve({ error: error.message, latencyMs: elapsed(), responsePrefix: '' }));
      request.end(body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses;
    const refused = list.find((a) => isPrivateAddress(a.address));
    if (refused) return callback(Object.assign(new Error(`${hostname} resolves to a private address (${refused.address})`), { code: 'EPRIVATE' }), []);
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
