import type { NotificationChannel, NotificationProvider } from '@chat/contracts';
import { DEFAULT_MAX_ANSWER_BYTES, readAtMost } from '@chat/delivery';

/** Base URLs of the providers' real APIs; configuration, so tests and closed networks can point elsewhere. */
export interface ProviderEndpoints {
  fcm: string;
  fcmToken: string;
  apns: string;
  apnsSandbox: string;
  twilio: string;
  sendgrid: string;
}

/** A provider ready to call: its settings and its secrets opened. */
export interface OpenProvider {
  channel: NotificationChannel;
  provider: NotificationProvider;
  providerId: string;
  settings: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** What a provider answered; `status` absent when it did not answer at all. */
export interface ProviderAnswer {
  status?: number;
  error?: string;
  latencyMs: number;
  /** At most 256 characters of the answer (the log shows them). */
  responsePrefix: string;
  /** The provider said the push token reaches no device any more. */
  invalidToken?: boolean;
}

/** The notification as an adapter sends it. */
export interface OutgoingNotification {
  notificationId: string;
  recipient: string;
  pushToken?: string | undefined;
  tokenType?: string | undefined;
  payload: Record<string, unknown>;
}

export interface ProviderAdapter {
  send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer>;
}

export const ANSWER_PREFIX_CHARS = 256;

/**
 * A POST through fetch to an operator-configured API (no private-address check: the operator chose
 * it; tenant URLs go through `OutboundHttp`). Redirects are not followed and at most 64 KiB of the
 * answer is read: a provider's answer is small, and whatever it sends is held in memory.
 */
export async function postTo(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ answer: ProviderAnswer; text: string }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const text = response.body ? (await readAtMost(response.body, DEFAULT_MAX_ANSWER_BYTES)).bytes.toString('utf8') : '';
    return { answer: { status: response.status, latencyMs: elapsed(), responsePrefix: text.slice(0, ANSWER_PREFIX_CHARS) }, text };
  } catch (error) {
    return { answer: { error: error instanceof Error ? error.message : String(error), latencyMs: elapsed(), responsePrefix: '' }, text: '' };
  }
}

/** `Authorization: Basic …` for a username and password. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** base64url of a JSON value or bytes, for JWTs. */
export function base64url(value: unknown): string {
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
  return bytes.toString('base64url');
}

export function settingString(provider: OpenProvider, key: string): string {
  return textOf(provider.settings[key]);
}

/** A payload value as text: strings as they are, anything else the fallback. */
export function textOf(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

/** Short-lived credentials (OAuth access tokens, APNs provider tokens) per provider, until they expire. */
export class TokenCache {
  private readonly tokens = new Map<string, { value: string; expiresAt: number }>();

  constructor(readonly clock: () => number = Date.now) {}

  get(providerId: string): string | undefined {
    const cached = this.tokens.get(providerId);
    return cached && cached.expiresAt > this.clock() ? cached.value : undefined;
  }

  set(providerId: string, value: string, lifetimeMs: number): void {
    this.tokens.set(providerId, { value, expiresAt: this.clock() + lifetimeMs });
  }

  forget(providerId: string): void {
    this.tokens.delete(providerId);
  }
}
