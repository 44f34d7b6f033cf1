import { randomUUID } from 'node:crypto';
import { AUTH_TOKEN_SCOPE, ApiError, REQUEST_ID_PATTERN, apiKeyScopes, internalHeaders } from '@chat/contracts';
import type { Actor, ApiKeyScope, RoleLimits } from '@chat/contracts';
import type { RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';

/** What these read of a request: its headers (an express request, or a plain one answered before express). */
export type RequestHeaders = Pick<IncomingMessage, 'headers'>;

function header(req: RequestHeaders, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The caller as the gateway established it. A request without the gateway's headers did not come
 * through the gateway and is refused. A client's call (an auth token, ADR 0070) always acts as the
 * token's user.
 */
export function actorOf(req: RequestHeaders): Actor {
  const appId = header(req, internalHeaders.appId);
  const keyId = header(req, internalHeaders.keyId);
  const scope = header(req, internalHeaders.scope);
  const uid = header(req, internalHeaders.onBehalfOf);
  const client = scope === AUTH_TOKEN_SCOPE;
  if (!appId || !keyId || !scope || !(client ? uid : (apiKeyScopes as readonly string[]).includes(scope))) {
    throw new ApiError('AUTH_ERR_APIKEY_NOT_FOUND', 'The request carries no authenticated caller.');
  }
  return { appId, keyId, scope: client ? AUTH_TOKEN_SCOPE : (scope as ApiKeyScope), ...(uid ? { uid: uid.toLowerCase() } : {}) };
}

export function actingUid(actor: Actor): string {
  if (!actor.uid) throw new ApiError('ERR_EMPTY_ON_BEHALF_OF', 'The onBehalfOf header is required for this operation.');
  return actor.uid;
}

/** The gateway's request id; anything else in the header (a direct call) is not trusted as one. */
export function requestIdOf(req: RequestHeaders): string {
  const id = header(req, internalHeaders.requestId);
  return id !== undefined && REQUEST_ID_PATTERN.test(id) ? id : 'unknown';
}

/** The acting user's value-level role limits on this operation, as the gateway handed them (ADR 0022). */
export function roleLimitsOf(req: RequestHeaders): RoleLimits | undefined {
  const value = header(req, internalHeaders.roleLimits);
  return value === undefined ? undefined : (JSON.parse(decodeURIComponent(value)) as RoleLimits);
}

/** The request id, or a fresh one when the caller came without (a direct call in a test). */
export function correlationIdOf(req: RequestHeaders): string {
  const id = requestIdOf(req);
  return id === 'unknown' ? randomUUID() : id;
}

/** Management calls are authenticated by the gateway (key/secret), which marks them with this header. */
export const requireManagementCaller: RequestHandler = (req, _res, next) => {
  if (req.headers[internalHeaders.management] !== '1') {
    throw new ApiError('AUTH_ERR_EMPTY_AUTH_HEADER', 'Management APIs need the key and secret headers.');
  }
  next();
};
