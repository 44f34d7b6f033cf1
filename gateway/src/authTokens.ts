import { authTokenOwnerSchema, internalPaths } from '@chat/contracts';
import type { AuthTokenOwner } from '@chat/contracts';
import { sha256Hex } from './auth.js';
import { internalJsonClient } from '@chat/http';
import { NO_REDIS, TieredCache } from './tieredCache.js';

/**
 * Auth-token owners, cached in this process only and never older than 1 s (ADR 0070): a deleted or
 * flushed token, or its user deactivated or deleted, stops working on every gateway within 1 s without
 * an invalidation channel (the users service has no Redis, and the same bound holds for API keys and
 * role rules). A token in use refreshes in the background after 500 ms, so only its first call in a
 * second waits for the users service. Unknown tokens are kept apart (ADR 0040): guesses never push a
 * real token out.
 */
export const AUTH_TOKEN_CACHE = { capacity: 50_000, negativeCapacity: 10_000, maxAgeMs: 1_000, refreshAfterMs: 500, negativeTtlMs: 1_000, redisTtlSeconds: 1 };

/** The users service's answer: the owner of the app's live token with this SHA-256, null when none. */
export type AuthTokenLoad = (appId: string, tokenHash: string) => Promise<AuthTokenOwner | null>;

/** Auth-token look-ups on the users service's internal endpoint, and the close of its connections. */
export function usersAuthTokenLookups(usersUrl: string, timeoutMs: number): { load: AuthTokenLoad; close: () => Promise<void> } {
  const client = internalJsonClient(usersUrl, timeoutMs, 'users');
  return {
    load: async (appId, tokenHash) => {
      const body = await client.get(internalPaths.authTokenByHash(appId, tokenHash));
      return body === null ? null : authTokenOwnerSchema.parse(body);
    },
    close: () => client.close(),
  };
}

/**
 * Who an auth token authenticates in an app: `{uid, tokenId}`, or null for an unknown, revoked or
 * another app's token (or one whose user is not active). Only the token's SHA-256 leaves this class:
 * it is what the cache, the look-up's path and any error name, so the token itself is never logged.
 */
export class AuthTokenResolver {
  private readonly cache: TieredCache<AuthTokenOwner>;

  constructor(load: AuthTokenLoad, onError: (error: unknown, context: string) => void, now?: () => number) {
    this.cache = new TieredCache<AuthTokenOwner>({
      ...AUTH_TOKEN_CACHE,
      redis: NO_REDIS,
      redisKey: (id) => id,
      // Ids are `<appId>\n<sha256>`: neither contains a newline.
      load: (id) => {
        const [appId = '', tokenHash = ''] = id.split('\n');
        return load(appId, tokenHash);
      },
      parse: () => null,
      onError,
      ...(now ? { now } : {}),
    });
  }

  /** The cache's id of a token in an app (its SHA-256 scoped by the app): one hash per request. */
  static idOf(appId: string, token: string): string {
    return `${appId}\n${sha256Hex(token)}`;
  }

  /**
   * The owner now on a fresh hit (no I/O, no promise: the hot path), else once looked up; rejects when
   * the users service cannot answer (a failure, not an unknown token).
   */
  resolve(appId: string, token: string): AuthTokenOwner | null | Promise<AuthTokenOwner | null> {
    return this.get(AuthTokenResolver.idOf(appId, token));
  }

  /** `resolve` by an id from `idOf`, for a caller that already hashed the token. */
  get(id: string): AuthTokenOwner | null | Promise<AuthTokenOwner | null> {
    return this.cache.get(id);
  }

  /** Whether this process knew the token to be live when it last looked (no I/O). */
  holds(id: string): boolean {
    return this.cache.holds(id);
  }
}
