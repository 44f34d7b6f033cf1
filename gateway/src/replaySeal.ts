import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Stored `Idempotency-Key` answers are sealed (ADR 0039): an answer may carry an auth token or
 * another credential, and Redis keeps it for 24 h. The AES-256-GCM key is derived (HKDF-SHA256) from
 * the client's Idempotency-Key with the app and API key it was sent with, and Redis names the record
 * only by a digest of the Idempotency-Key, so the stored answer opens only for a request that
 * presents the same Idempotency-Key again: the replay the record exists for. Redis alone, or Redis
 * with the gateway's whole configuration, does not open it (unless the Idempotency-Key is guessable;
 * clients send random ones).
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = Buffer.from('chat gateway idempotent answer v1');

export interface ReplayScope {
  appId: string;
  keyId: string;
  idempotencyKey: string;
}

/** The record's key: bound to the app and API key, so another tenant's same Idempotency-Key derives another. */
export function replayKey(scope: ReplayScope): Buffer {
  const salt = Buffer.from(JSON.stringify([scope.appId, scope.keyId]));
  return Buffer.from(hkdfSync('sha256', scope.idempotencyKey, salt, HKDF_INFO, 32));
}

/** base64url of iv | tag | ciphertext; `context` (the store key) is authenticated, so a record moved to another key does not open. */
export function sealReplay(key: Buffer, plain: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext; throws when the key or context differ or the record was altered. */
export function openReplay(key: Buffer, sealed: string, context: string): Buffer {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('the stored answer is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
