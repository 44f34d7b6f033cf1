import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** One request a fake provider received. */
export interface ProviderRequest {
  provider: 'fcm-token' | 'fcm' | 'apns' | 'twilio' | 'sendgrid';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

interface Scripted {
  status: number;
  body: string;
}

/**
 * Local stand-ins for FCM (and its OAuth token endpoint), APNs (HTTP/2, plaintext), Twilio and
 * SendGrid. They record every request for the tests to check (auth header, payload shape) and
 * answer what a test scripted, else what the real API answers on success. Started once by the
 * global set-up, before the services, so the services' base URLs point here; tests reach the
 * record through `/__received` and script answers through `/__script`.
 */
export class FakeProviders {
  readonly received: ProviderRequest[] = [];
  private readonly scripts = new Map<string, Scripted[]>();
  private http: Server | undefined;
  private h2: Http2Server | undefined;
  /** The access token the fake token endpoint hands out; FCM calls must carry it. */
  readonly accessToken = `ya29.${randomBytes(12).toString('hex')}`;

  get urls(): { http: string; apns: string } {
    return {
      http: `http://127.0.0.1:${(this.http!.address() as AddressInfo).port}`,
      apns: `http://127.0.0.1:${(this.h2!.address() as AddressInfo).port}`,
    };
  }

  /** The variables that point the notifications service's adapters at these fakes. */
  env(): Record<string, string> {
    const { http, apns } = this.urls;
    return {
      FCM_BASE_URL: `${http}/fcm`,
      FCM_TOKEN_URL: `${http}/oauth2/token`,
      APNS_BASE_URL: apns,
      APNS_SANDBOX_BASE_URL: apns,
      TWILIO_BASE_URL: `${http}/twilio`,
      SENDGRID_BASE_URL: `${http}/sendgrid`,
    };
  }

  async start(): Promise<this> {
    this.http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        if (path === '/__received') return this.reply(res, 200, JSON.stringify(this.received));
        if (path === '/__script' && req.method === 'POST') {
          const { provider, responses } = JSON.parse(body) as { provider: string; responses: Scripted[] };
          this.scripts.set(provider, [...(this.scripts.get(provider) ?? []), ...responses]);
          return this.reply(res, 200, '{}');
        }
        const provider = path.startsWith('/oauth2/') ? 'fcm-token' : path.startsWith('/fcm/') ? 'fcm' : path.startsWith('/twilio/') ? 'twilio' : 'sendgrid';
        this.received.push({ provider, method: req.method ?? '', path, headers: req.headers, body, receivedAt: Date.now() });
        const scripted = this.scripts.get(provider)?.shift();
        if (scripted) return this.reply(res, scripted.status, scripted.body);
        if (provider === 'fcm-token') return this.reply(res, 200, JSON.stringify({ access_token: this.accessToken, expires_in: 3599, token_type: 'Bearer' }));
        if (provider === 'fcm') return this.reply(res, 200, JSON.stringify({ name: `projects/p/messages/${randomBytes(4).toString('hex')}` }));
        if (provider === 'twilio') return this.reply(res, 201, JSON.stringify({ sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued' }));
        return this.reply(res, 202, '');
      });
    });
    this.h2 = createHttp2Server();
    this.h2.on('stream', (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const plain: IncomingHttpHeaders = {};
        for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':')) plain[k] = v;
        this.received.push({ provider: 'apns', method: String(headers[':method']), path: String(headers[':path']), headers: plain, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
        const scripted = this.scripts.get('apns')?.shift();
        stream.respond({ ':status': scripted?.status ?? 200, 'apns-id': String(headers['apns-id'] ?? '') });
        stream.end(scripted?.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => this.h2!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  private reply(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  }

  async stop(): Promise<void> {
    this.http?.closeAllConnections();
    await Promise.all([
      new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve())),
      new Promise<void>((resolve) => (this.h2 ? this.h2.close(() => resolve()) : resolve())),
    ]);
  }
}

/** What the fakes received, read from a test (the fakes run in the global set-up's process). */
export async function providerRequests(controlUrl: string): Promise<ProviderRequest[]> {
  return (await (await fetch(`${controlUrl}/__received`)).json()) as ProviderRequest[];
}

/** The next answers of one fake, one per request. */
export async function scriptProvider(controlUrl: string, provider: ProviderRequest['provider'], responses: Scripted[]): Promise<void> {
  await fetch(`${controlUrl}/__script`, { method: 'POST', body: JSON.stringify({ provider, responses }) });
}
