import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` + base64 of 24 random bytes; the HMAC key is those bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body` (timestamp in
 * epoch seconds), keyed with the secret's decoded bytes.
 */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', signingKeyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** Secrets whose decoded key a process keeps: every attempt of a webhook signs with the same one. */
const KEPT_KEYS = 1_000;
const keys = new Map<string, KeyObject>();

function signingKeyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64'));
    if (keys.size >= KEPT_KEYS) keys.clear();
    keys.set(secret, key);
  }
  return key;
}
