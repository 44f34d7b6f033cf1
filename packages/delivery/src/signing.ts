import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { keptAnswers } from './keptAnswers.js';

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

/** The decoded key of a secret, kept: every attempt of a webhook signs with the same one. */
const signingKeyOf = keptAnswers(1_000, (secret: string): KeyObject =>
  createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')),
);
