import { createSign } from 'node:crypto';
import { base64url, postTo, textOf } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer, ProviderEndpoints, TokenCache } from './endpoints.js';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * FCM HTTP v1: an OAuth 2 access token from the service account (a signed JWT exchanged at the
 * token endpoint, kept until a minute before it expires), then `POST /v1/projects/{id}/messages:send`.
 * FCM's data values must be strings. A 404 `UNREGISTERED` (or a 400 naming the token) means the
 * token reaches no device any more.
 */
export class FcmProvider implements ProviderAdapter {
  constructor(
    private readonly endpoints: ProviderEndpoints,
    private readonly timeoutMs: number,
    /** Access tokens by provider id, until a minute before they expire. */
    private readonly tokens: TokenCache,
  ) {}

  async send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    const credentials = parseServiceAccount(provider.secrets['serviceAccountCreds']);
    if (!credentials) return { error: 'the provider has no usable service account credentials', latencyMs: 0, responsePrefix: '' };
    const access = await this.accessToken(provider, credentials);
    if ('error' in access) return access.error;
    const details = (notification.payload['notificationDetails'] ?? {}) as Record<string, unknown>;
    const platform = textOf(notification.payload['platform'], 'android');
    const inPayload = (provider.settings['notificationInPayload'] ?? {}) as Record<string, { chat?: boolean } | undefined>;
    const message = {
      token: notification.pushToken,
      data: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
      ...(inPayload[platform]?.chat ? { notification: { title: textOf(details['title']), body: textOf(details['body']) } } : {}),
    };
    const url = `${this.endpoints.fcm}/v1/projects/${encodeURIComponent(credentials.project_id)}/messages:send`;
    const { answer, text } = await postTo(url, { authorization: `Bearer ${access.token}`, 'content-type': 'application/json' }, JSON.stringify({ message }), this.timeoutMs);
    const invalid = answer.status === 404 || (answer.status === 400 && /registration token|UNREGISTERED/i.test(text));
    return { ...answer, ...(invalid ? { invalidToken: true } : {}) };
  }

  private async accessToken(provider: OpenProvider, credentials: ServiceAccount): Promise<{ token: string } | { error: ProviderAnswer }> {
    const cached = this.tokens.get(provider.providerId);
    if (cached) return { token: cached };
    const iat = Math.floor(this.tokens.clock() / 1000);
    const unsigned = `${base64url({ alg: 'RS256', typ: 'JWT', kid: credentials.private_key_id })}.${base64url({
      iss: credentials.client_email,
      scope: SCOPE,
      aud: this.endpoints.fcmToken,
      iat,
      exp: iat + 3600,
    })}`;
    let signature: string;
    try {
      signature = createSign('RSA-SHA256').update(unsigned).sign(credentials.private_key).toString('base64url');
    } catch {
      return { error: { error: 'the service account private key cannot sign', latencyMs: 0, responsePrefix: '' } };
    }
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${signature}` });
    const { answer, text } = await postTo(this.endpoints.fcmToken, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString(), this.timeoutMs);
    if (answer.status !== 200) return { error: { ...answer, error: answer.error ?? 'the OAuth token endpoint refused the service account' } };
    let body: { access_token?: string; expires_in?: number };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {};
    }
    if (!body.access_token) return { error: { status: 200, error: 'the OAuth token endpoint returned no access_token', latencyMs: answer.latencyMs, responsePrefix: answer.responsePrefix } };
    this.tokens.set(provider.providerId, body.access_token, Math.max(0, (body.expires_in ?? 3600) - 60) * 1000);
    return { token: body.access_token };
  }
}

interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

function parseServiceAccount(sealedJson: string | undefined): ServiceAccount | null {
  if (!sealedJson) return null;
  try {
    const parsed = JSON.parse(sealedJson) as Partial<ServiceAccount>;
    return parsed.project_id && parsed.client_email && parsed.private_key ? (parsed as ServiceAccount) : null;
  } catch {
    return null;
  }
}
