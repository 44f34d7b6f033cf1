import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyScope } from '@chat/contracts';
import type { KeyRef, NewApiKey } from '../../domain/apps/appCommands.js';

/** CometChat's key format: 40 lower-case hex characters (160 random bits). */
export const API_KEY_PATTERN = /^[0-9a-f]{40}$/;
/** Our public key id: the first 16 hex characters of the key's hash, safe to show and log. */
export const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;
const MASKED_KEY_PATTERN = /^([0-9a-f]{4})(?:…|\.\.\.)([0-9a-f]{4})$/;

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function keyIdOf(keyHash: string): string {
  return keyHash.slice(0, 16);
}

/** Enough to recognise a key in a list, too little to use it: `f191…3fbf`. */
export function maskApiKey(key: string): string {
  return `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export function newAppId(): string {
  return randomBytes(8).toString('hex');
}

/** A fresh key: the value goes to the caller once; only its hash and mask are kept. */
export function mintApiKey(name: string, scope: ApiKeyScope, createdBy: string): { apiKey: string; record: NewApiKey } {
  const apiKey = randomBytes(20).toString('hex');
  const keyHash = hashApiKey(apiKey);
  return { apiKey, record: { keyId: keyIdOf(keyHash), keyHash, maskedKey: maskApiKey(apiKey), name, scope, createdBy } };
}

/**
 * The `:apiKey` path parameter names a key either by its full value (what CometChat's clients send)
 * or by the `keyId` our list and get responses show, or by the masked value itself.
 * Anything else cannot name a key.
 */
export function keyRefFromParam(param: string): KeyRef | null {
  if (API_KEY_PATTERN.test(param)) {
    const keyHash = hashApiKey(param);
    return { keyId: keyIdOf(keyHash), keyHash };
  }
  if (KEY_ID_PATTERN.test(param)) return { keyId: param };
  // The masked form lists show; `...` for clients that cannot send the ellipsis character.
  const masked = MASKED_KEY_PATTERN.exec(param);
  if (masked) return { maskedKey: `${masked[1]}…${masked[2]}` };
  return null;
}
