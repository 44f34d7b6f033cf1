import { createPrivateKey, sign } from 'node:crypto';
import { connect, constants } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { ANSWER_PREFIX_CHARS, base64url, settingString, textOf } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer, ProviderEndpoints, TokenCache } from './endpoints.js';

/** Apple accepts a provider token for an hour and asks that it not be renewed more than every 20 minutes. */
const TOKEN_LIFETIME_MS = 30 * 60_000;

/**
 * APNs over HTTP/2 (`node:http2`, one session per origin): `POST /3/device/{token}` with an ES256
 * provider token (key id, team id, the .p8 key), `apns-topic` the bundle id (`.voip` for VoIP
 * tokens). A 410, or a 400 `BadDeviceToken`, means the token reaches no device any more.
 */
export class ApnsProvider implements ProviderAdapter {
  private readonly sessions = new Map<string, ClientHttp2Session>();
  constructor(
    private readonly endpoints: ProviderEndpoints,
    private readonly timeoutMs: number,
    /** Provider tokens by provider id, for half an hour each. */
    private readonly tokens: TokenCache,
  ) {}

  async send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    const bearer = this.providerToken(provider);
    if (!bearer) return { error: 'the provider has no usable p8 key', latencyMs: 0, responsePrefix: '' };
    const details = (notification.payload['notificationDetails'] ?? {}) as Record<string, unknown>;
    const voip = notification.tokenType === 'apns_voip';
    const aps: Record<string, unknown> = voip
      ? { 'content-available': 1 }
      : {
          alert: { title: textOf(details['title']), body: textOf(details['body']) },
          sound: textOf(details['sound'], 'default'),
          ...(provider.settings['includeContentAvailable'] === true ? { 'content-available': 1 } : {}),
          ...(provider.settings['includeMutableContent'] === true ? { 'mutable-content': 1 } : {}),
        };
    const body = JSON.stringify({ aps, ...details });
    const origin = provider.settings['productionMode'] === false ? this.endpoints.apnsSandbox : this.endpoints.apns;
    const bundleId = settingString(provider, 'bundleId');
    return this.post(origin, `/3/device/${encodeURIComponent(notification.pushToken ?? '')}`, {
      authorization: `bearer ${bearer}`,
      'apns-topic': voip ? `${bundleId}.voip` : bundleId,
      'apns-push-type': voip ? 'voip' : 'alert',
      'apns-id': toUuid(notification.notificationId),
      'content-type': 'application/json',
    }, body);
  }

  close(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }

  private providerToken(provider: OpenProvider): string | null {
    const cached = this.tokens.get(provider.providerId);
    if (cached) return cached;
    const now = this.tokens.clock();
    const p8 = provider.secrets['p8Key'];
    if (!p8) return null;
    try {
      const unsigned = `${base64url({ alg: 'ES256', kid: settingString(provider, 'keyId') })}.${base64url({ iss: settingString(provider, 'teamId'), iat: Math.floor(now / 1000) })}`;
      const signature = sign('sha256', Buffer.from(unsigned), { key: createPrivateKey(p8), dsaEncoding: 'ieee-p1363' });
      const value = `${unsigned}.${base64url(signature)}`;
      this.tokens.set(provider.providerId, value, TOKEN_LIFETIME_MS);
      return value;
    } catch {
      return null;
    }
  }

  private session(origin: string): ClientHttp2Session {
    let session = this.sessions.get(origin);
    if (!session || session.closed || session.destroyed) {
      session = connect(origin);
      const opened = session;
      opened.on('error', () => this.sessions.delete(origin));
      opened.on('close', () => {
        if (this.sessions.get(origin) === opened) this.sessions.delete(origin);
      });
      opened.unref();
      this.sessions.set(origin, opened);
    }
    return session;
  }

  private post(origin: string, path: string, headers: Record<string, string>, body: string): Promise<ProviderAnswer> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let stream;
      try {
        stream = this.session(origin).request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: path, ...headers });
      } catch (error) {
        resolve({ error: error instanceof Error ? error.message : String(error), latencyMs: elapsed(), responsePrefix: '' });
        return;
      }
      let status: number | undefined;
      let text = '';
      stream.setEncoding('utf8');
      stream.setTimeout(this.timeoutMs, () => stream.close(constants.NGHTTP2_CANCEL));
      stream.on('response', (h) => (status = Number(h[constants.HTTP2_HEADER_STATUS])));
      stream.on('data', (chunk: string) => {
        if (text.length < 4096) text += chunk;
      });
      stream.on('end', () => {
        const invalid = status === 410 || (status === 400 && /BadDeviceToken|DeviceTokenNotForTopic/.test(text));
        resolve({ ...(status !== undefined ? { status } : {}), latencyMs: elapsed(), responsePrefix: text.slice(0, ANSWER_PREFIX_CHARS), ...(invalid ? { invalidToken: true } : {}) });
      });
      stream.on('error', (error: Error) => resolve({ ...(status !== undefined ? { status } : {}), error: error.message, latencyMs: elapsed(), responsePrefix: text.slice(0, ANSWER_PREFIX_CHARS) }));
      stream.on('close', () => {
        if (status === undefined) resolve({ error: `no answer within ${this.timeoutMs} ms`, latencyMs: elapsed(), responsePrefix: '' });
      });
      stream.end(body);
    });
  }
}

/** APNs wants a UUID as the notification id; ours is 32 hex characters. */
function toUuid(hex: string): string {
  const h = hex.padEnd(32, '0').slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
