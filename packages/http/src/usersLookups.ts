import { authTokenOwnerSchema, internalPaths, userExistenceSchema } from '@chat/contracts';
import type { AuthTokenOwner } from '@chat/contracts';
import { z } from 'zod';
import { internalJsonClient } from './internalJson.js';
import type { InternalJsonClient } from './internalJson.js';

const TIMEOUT_MS = 2_000;

/** No replica of the users service answered: a route answers 503 with `Retry-After` (`apiErrorOf`). */
export class UsersServiceUnavailableError extends Error {
  override readonly name = 'UsersServiceUnavailableError';
}

/**
 * What another service asks the users service, which owns users and auth tokens, instead of keeping a
 * copy written on every event (ADR 0101, 0144): whether an app has a user (realtime, a typing notice's
 * receiver), and whose live auth token has a SHA-256 (notifications, a push token's session). The users
 * service answers from its own read model, written before it answered the request that made the user
 * or token, so a token issued a moment ago is known on every replica. Replicas are asked in turn; one
 * that does not answer is passed over once. A failure is thrown as `UsersServiceUnavailableError` (a
 * route answers 503; realtime's frame "try again"), never taken for "none".
 */
export class UsersLookups {
  private turn = 0;
  /** One connection pool per replica: the gateway's client for internal endpoints (ADR 0057). */
  private readonly replicas: readonly InternalJsonClient[];

  constructor(baseUrls: readonly string[], timeoutMs = TIMEOUT_MS) {
    if (baseUrls.length === 0) throw new Error('the users service needs at least one origin (USERS_URL)');
    this.replicas = baseUrls.map((url) => internalJsonClient(url, timeoutMs, 'the users service'));
  }

  async userExists(appId: string, uid: string): Promise<boolean> {
    const body = await this.get(internalPaths.userExists(appId, uid));
    if (body === null) return false;
    userExistenceSchema.parse(body);
    return true;
  }

  /** The owner of the app's live auth token with this SHA-256 (hex); null for an unknown or revoked one, or an inactive user's. */
  async authTokenOwner(appId: string, tokenHash: string): Promise<AuthTokenOwner | null> {
    const body = await this.get(internalPaths.authTokenByHash(appId, tokenHash));
    return body === null ? null : authTokenOwnerSchema.parse(body);
  }

  /** The answer's JSON, null on a 404. */
  private async get(path: string): Promise<unknown> {
    const first = this.turn++ % this.replicas.length;
    const attempts = Math.min(2, this.replicas.length);
    let failure: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        return await this.replicas[(first + i) % this.replicas.length]!.get(path);
      } catch (error) {
        failure = error;
      }
    }
    throw new UsersServiceUnavailableError(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }

  /** Closes the replicas' connections (the service's stop). */
  async close(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.close()));
  }
}

/** `USERS_URL`'s comma-separated replica origins, trailing slashes dropped. */
export function usersOrigins(setting: string): string[] {
  return setting
    .split(',')
    .map((url) => url.trim().replace(/\/$/, ''))
    .filter(Boolean);
}

/** The `USERS_URL` setting of a service that asks the users service: its replica origins. */
export const usersUrlSetting = z.string().min(1).default('http://127.0.0.1:3101').transform(usersOrigins);
