import { ROLE_ACCESS_BATCH_MAX, chunk, internalPaths, operationGates, roleAccessBatchSchema, roleAccessSchema } from '@chat/contracts';
import type { RoleAccess, RouteSpec } from '@chat/contracts';
import { counter, internalJsonClient } from '@chat/http';
import { NO_REDIS, TieredCache } from './tieredCache.js';

/**
 * The acting user's role rules, cached in-process only and never older than 1 s: a change of a role's
 * permissions or restricted features (or of a user's role) takes effect on every gateway within 1 s
 * without an invalidation channel. The first gated call of a user waits for its look-up; after that,
 * every 500 ms one request per app refreshes each user who made a gated call in the last 5 s and whose
 * rules are 250 ms old or more (ADR 0104), so a user stays warm between calls and a second of traffic
 * costs two requests per app instead of one per hot user. A refresh is asked at most 750 ms (plus the
 * timer's lag) into an entry's life; one that has not come back by 1 s leaves the next call to wait.
 */
export const ROLE_ACCESS_CACHE = { capacity: 50_000, maxAgeMs: 1_000, refreshAfterMs: 250, negativeTtlMs: 1_000, redisTtlSeconds: 1 };
export const ROLE_ACCESS_REFRESH = { everyMs: 500, keepWarmMs: 5_000 };

/** The users service's answer to a role look-up: the user's rules, null when no active user has that uid. */
export type RoleAccessLoad = (appId: string, uid: string) => Promise<RoleAccess | null>;
/** Many users of an app at once: one answer per uid, in their order. */
export type RoleAccessLoadMany = (appId: string, uids: readonly string[]) => Promise<(RoleAccess | null)[]>;

export interface RoleLookups {
  load: RoleAccessLoad;
  loadMany: RoleAccessLoadMany;
}

/**
 * Role look-ups on the users service's internal endpoints, and the close of their connections. Each
 * request is counted in `gateway_role_lookups_total` (`kind`: `one` user, `many` in a gathered refresh).
 */
export function usersRoleLookups(usersUrl: string, timeoutMs: number): RoleLookups & { close: () => Promise<void> } {
  const client = internalJsonClient(usersUrl, timeoutMs, 'users');
  const requests = counter('gateway_role_lookups_total', "Requests to the users service for acting users' role rules, by kind (one user, or many in a gathered refresh).", ['kind']);
  return {
    load: async (appId, uid) => {
      requests.inc({ kind: 'one' });
      const body = await client.get(internalPaths.roleAccess(appId, uid));
      return body === null ? null : roleAccessSchema.parse(body);
    },
    loadMany: async (appId, uids) => {
      const answers = await Promise.all(
        chunk(uids, ROLE_ACCESS_BATCH_MAX).map(async (slice) => {
          requests.inc({ kind: 'many' });
          const { access } = roleAccessBatchSchema.parse(await client.post(internalPaths.roleAccessBatch(appId), { uids: slice }));
          if (access.length !== slice.length) throw new Error(`users answered ${access.length} role rules to ${slice.length} uids`);
          return access;
        }),
      );
      return answers.flat();
    },
    close: () => client.close(),
  };
}

export function roleAccessCache(lookups: RoleLookups, onError: (error: unknown, context: string) => void, now?: () => number): TieredCache<RoleAccess> {
  return new TieredCache<RoleAccess>({
    ...ROLE_ACCESS_CACHE,
    redis: NO_REDIS,
    redisKey: (id) => id,
    load: (id) => {
      const { appId, uid } = fromRoleAccessId(id);
      return lookups.load(appId, uid);
    },
    gather: { ...ROLE_ACCESS_REFRESH, loadMany: (ids) => loadByApp(lookups.loadMany, ids) },
    parse: () => null,
    onError,
    ...(now ? { now } : {}),
  });
}

/** One `loadMany` per app among `ids`, the answers put back in the order of `ids`. */
async function loadByApp(loadMany: RoleAccessLoadMany, ids: readonly string[]): Promise<(RoleAccess | null)[]> {
  const byApp = new Map<string, { uids: string[]; at: number[] }>();
  ids.forEach((id, index) => {
    const { appId, uid } = fromRoleAccessId(id);
    const app = byApp.get(appId) ?? { uids: [], at: [] };
    app.uids.push(uid);
    app.at.push(index);
    byApp.set(appId, app);
  });
  const answers = new Array<RoleAccess | null>(ids.length).fill(null);
  await Promise.all(
    [...byApp].map(async ([appId, { uids, at }]) => {
      const access = await loadMany(appId, uids);
      if (access.length !== uids.length) throw new Error(`${access.length} role rules for ${uids.length} uids`);
      access.forEach((value, i) => (answers[at[i]!] = value));
    }),
  );
  return answers;
}

function fromRoleAccessId(id: string): { appId: string; uid: string } {
  // Ids are `<appId>\n<uid>`: neither can contain a newline.
  const [appId = '', uid = ''] = id.split('\n');
  return { appId, uid };
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
