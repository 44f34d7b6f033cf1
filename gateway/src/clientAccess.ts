import { CHAT_API_PREFIX, normalizeUid } from '@chat/contracts';
import type { AuthTokenOwner, RouteSpec } from '@chat/contracts';
import type { Refusal } from './auth.js';

/** What to do with a call that came with an auth token (and no API key) once the token is resolved. */
export type ClientDecision = { kind: 'allow'; owner: AuthTokenOwner } | { kind: 'refuse'; refusal: Refusal };

const UNKNOWN_TOKEN: Refusal = { code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND', message: 'The authtoken is not valid for this app.' };

/**
 * Token → operation → onBehalfOf → the path's own uid, in that order (ADR 0070), so a caller learns
 * nothing about an operation before it has shown a live token of the app. An allowed call acts as the
 * token's user on every operation (the gateway forwards that uid as onBehalfOf), so the service applies
 * the user's rules (own messages, group ranks, membership) exactly as for a server acting for them.
 *
 * `onBehalfOf`: the header as the client sent it (only its own uid, or none, is accepted); `pathUid`:
 * the path's `:uid` where the route has one (`ownPathUid`), null when it could not be read.
 */
export function decideClientAccess(
  route: RouteSpec,
  owner: AuthTokenOwner | null,
  onBehalfOf: string | undefined,
  pathUid: string | null | undefined,
): ClientDecision {
  if (!owner) return { kind: 'refuse', refusal: UNKNOWN_TOKEN };
  if (route.client === 'app') {
    return { kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: `${route.operationId} is the app's operation: it needs an apikey, not an authtoken.` } };
  }
  if (onBehalfOf !== undefined && normalizeUid(onBehalfOf) !== owner.uid) {
    return { kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: `An authtoken acts only as its own user (${owner.uid}): onBehalfOf cannot name another.` } };
  }
  if (route.client === 'self' && (pathUid === null || pathUid === undefined || normalizeUid(pathUid) !== owner.uid)) {
    return { kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: `An authtoken acts only as its own user (${owner.uid}): the path's uid must be ${owner.uid}.` } };
  }
  return { kind: 'allow', owner };
}

/**
 * The path's `:uid` on a route whose path has one (percent-decoded, as the service's router reads it),
 * undefined when the route has none, null when the segment is not valid percent-encoding. `path` is the
 * request's, without the query string; the route table matched it segment by segment, so the segment
 * at the template's `:uid` is the one the service reads.
 */
export function ownPathUid(route: RouteSpec, path: string): string | null | undefined {
  const template = (route.api === 'chat' ? `${CHAT_API_PREFIX}${route.path}` : route.path).split('/');
  const index = template.indexOf(':uid');
  if (index === -1) return undefined;
  const segment = path.split('/')[index];
  if (segment === undefined) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
