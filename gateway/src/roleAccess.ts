import { internalPaths, operationGates, roleAccessSchema } from '@chat/contracts';
import type { RoleAccess, RouteSpec } from '@chat/contracts';
import { internalJsonClient } from './internalJson.js';
import { NO_REDIS, TieredCache } from './tieredCache.js';

/**
 * The acting user's role rules, cached in-process only and never older than 1 s: a change of a role's
 * permissions or restricted features (or of a user's role) takes effect on every gateway within 1 s
 * without an invalidation channel. A hot user refreshes in the background after 500 ms, so only the
 * first gated call of a user in a second waits for the users service.
 */
export const ROLE_ACCESS_CACHE = { capacity: 50_000, maxAgeMs: 1_000, refreshAfterMs: 500, negativeTtlMs: 1_000, redisTtlSeconds: 1 };

/** The users service's answer to a role look-up: the user's rules, null when no active user has that uid. */
export type RoleAccessLoad = (appId: string, uid: string) => Promise<RoleAccess | null>;

/** Role look-ups on the users service's internal endpoint, and the close of its connections. */
export function usersRoleLookups(usersUrl: string, timeoutMs: number): { load: RoleAccessLoad; close: () => Promise<void> } {
  const client = internalJsonClient(usersUrl, timeoutMs, 'users');
  return {
    load: async (appId, uid) => {
      const body = await client.get(internalPaths.roleAccess(appId, uid));
      return body === null ? null : roleAccessSchema.parse(body);
    },
    close: () => client.close(),
  };
}

export function roleAccessCache(load: RoleAccessLoad, onError: (error: unknown, context: string) => void, now?: () => number): TieredCache<RoleAccess> {
  return new TieredCache<RoleAccess>({
    ...ROLE_ACCESS_CACHE,
    redis: NO_REDIS,
    redisKey: (id) => id,
    // Ids are `<appId>\n<uid>`: neither can contain a newline.
    load: (id) => {
      const [appId = '', uid = ''] = id.split('\n');
      return load(appId, uid);
    },
    parse: () => null,
    onError,
    ...(now ? { now } : {}),
  });
}

export function roleAccessId(appId: string, uid: string): string {
  return `${appId}\n${uid}`;
}

/**
 * Whose role gates a call: the forwarded acting user; or, on an operation the catalogue runs as the app
 * (`onBehalfOf: ignored`) but a role rule gates (list users, friends, blocked users, group members),
 * the user the `onBehalfOf` header names. That header is read for the gate only, never forwarded, so
 * the service's behaviour does not change; without it the call is the app's and nothing is gated.
 */
export function gatedUser(route: RouteSpec, forwarded: string | undefined, header: string | undefined): string | undefined {
  if (forwarded !== undefined) return forwarded;
  return route.onBehalfOf === 'ignored' && header && Object.hasOwn(operationGates, route.operationId) ? header : undefined;
}
