import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyIdentity, ErrorCode, RouteSpec } from '@chat/contracts';

export interface Refusal {
  code: ErrorCode;
  message: string;
}

/** What to do with a chat call once its key is resolved. */
export type ChatDecision =
  | { kind: 'allow'; identity: ApiKeyIdentity; onBehalfOf: string | undefined }
  | { kind: 'refuse'; refusal: Refusal }
  /** The key is real but belongs to another app: the answer depends on whether the app exists. */
  | { kind: 'foreign-key' };

/** One-shot `crypto.hash` costs half of a createHash() object on this hot path. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Key → app → scope → onBehalfOf, in that order, so a caller learns nothing about an app or an
 * operation before it has shown a key of that app.
 */
export function decideChatAccess(
  route: RouteSpec,
  identity: ApiKeyIdentity | null,
  appId: string,
  onBehalfOf: string | undefined,
): ChatDecision {
  if (!identity) return { kind: 'refuse', refusal: { code: 'AUTH_ERR_APIKEY_NOT_FOUND', message: 'The apikey is not valid.' } };
  if (identity.appId !== appId) return { kind: 'foreign-key' };
  if (route.scope === 'fullAccess' && identity.scope !== 'fullAccess') {
    return {
      kind: 'refuse',
      refusal: { code: 'AUTH_ERR_NO_ACCESS', message: `This operation needs a fullAccess key; the apikey has scope ${identity.scope}.` },
    };
  }
  switch (route.onBehalfOf) {
    case 'required':
      if (!onBehalfOf) {
        return { kind: 'refuse', refusal: { code: 'ERR_EMPTY_ON_BEHALF_OF', message: 'The onBehalfOf header is required for this operation.' } };
      }
      return { kind: 'allow', identity, onBehalfOf };
    case 'optional':
      return { kind: 'allow', identity, onBehalfOf };
    case 'ignored':
      return { kind: 'allow', identity, onBehalfOf: undefined };
    default: {
      const unknown: never = route.onBehalfOf;
      throw new Error(`unknown onBehalfOf rule ${String(unknown)}`);
    }
  }
}

/** A key of app A never reaches app B; only whether B exists decides which error B's caller sees. */
export function refuseForeignKey(appExists: boolean, appId: string): Refusal {
  return appExists
    ? { code: 'AUTH_ERR_APIKEY_NOT_FOUND', message: 'The apikey is not valid for this app.' }
    : { code: 'AUTH_ERR_INVALID_APPID', message: `The app ${appId} does not exist.` };
}

/**
 * The management `key`/`secret` pair. Comparing SHA-256 digests keeps the comparison constant-time
 * and independent of the lengths involved.
 */
export class ManagementCredentials {
  private readonly key: Buffer;
  private readonly secret: Buffer;

  constructor(key: string, secret: string) {
    this.key = createHash('sha256').update(key, 'utf8').digest();
    this.secret = createHash('sha256').update(secret, 'utf8').digest();
  }

  check(key: string | undefined, secret: string | undefined): Refusal | null {
    if (!key || !secret) return { code: 'AUTH_ERR_EMPTY_AUTH_HEADER', message: 'Management APIs need the key and secret headers.' };
    const keyOk = timingSafeEqual(this.key, createHash('sha256').update(key, 'utf8').digest());
    const secretOk = timingSafeEqual(this.secret, createHash('sha256').update(secret, 'utf8').digest());
    return keyOk && secretOk ? null : { code: 'AUTH_ERR_INVALID_CREDENTIALS', message: 'The key or secret is not valid.' };
  }
}
