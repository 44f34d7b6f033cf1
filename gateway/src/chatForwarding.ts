import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalHeaders, roleDenial, roleLimits } from '@chat/contracts';
import type { Actor, RoleAccess, RouteSpec, ServiceName } from '@chat/contracts';
import type { Upstream } from './config.js';
import type { EdgeTracing } from './edgeTracing.js';
import { forwardedHeaders, single } from './forwardedHeaders.js';
import { IDEMPOTENT_METHODS, idempotencyKeyOf } from './idempotency.js';
import type { IdempotentForwarder } from './idempotency.js';
import { sendError } from './proxy.js';
import type { UpstreamProxy } from './proxy.js';
import { rateClassOf, rateLimitHeaders } from './rateLimit.js';
import type { RateLimiter } from './rateLimit.js';
import { gatedUser, roleAccessId } from './roleAccess.js';
import type { TieredCache } from './tieredCache.js';

/** Who a forwarded call comes from: an API key (its id and scope), or a client's auth token (ADR 0070). */
export interface Caller {
  keyId: string;
  scope: Actor['scope'];
  /** The token's id, when a client authenticated with an auth token. */
  authTokenId?: string;
}

export interface ChatForwardingDeps {
  rateLimiter: RateLimiter;
  roleAccess: TieredCache<RoleAccess>;
  tracing: EdgeTracing;
  pick: (service: ServiceName, appId?: string, uid?: string) => Upstream;
  proxy: UpstreamProxy;
  /** Present when Idempotency-Key is honoured (a store is configured). */
  idempotent: IdempotentForwarder | undefined;
  /** What a failed role look-up answers (the same as a failed credential look-up). */
  lookupFailed: (res: ServerResponse, requestId: string) => (error: unknown) => void;
}

/**
 * What happens to a chat call once its caller is authenticated and authorised, whichever credential
 * it showed: the app's rate limit, the acting user's role rules, then idempotent or plain forwarding
 * with the identity headers services trust.
 */
export class ChatForwarding {
  constructor(private readonly deps: ChatForwardingDeps) {}

  admit(req: IncomingMessage, res: ServerResponse, route: RouteSpec, appId: string, requestId: string, caller: Caller, onBehalfOf: string | undefined): void {
    // Counted in memory, synced in the background: no await here (ADR 0010).
    const rate = this.deps.rateLimiter.take(appId, rateClassOf(route));
    const rateHeaders = rateLimitHeaders(rate);
    for (const name in rateHeaders) res.setHeader(name, rateHeaders[name] as string);
    if (!rate.allowed) {
      return sendError(res, 'ERR_TOO_MANY_REQUESTS', `The app's limit of ${rate.limit} requests per minute is used up; retry in ${rate.retryAfter} s.`, requestId);
    }
    // Every acting user is looked up (cached ≤1 s, refreshed in the background): one rule for an
    // unknown or deactivated onBehalfOf on every route, and the role's rules for gated ones.
    const actingUser = gatedUser(route, onBehalfOf, single(req.headers.onbehalfof));
    if (actingUser !== undefined) {
      const access = this.deps.roleAccess.get(roleAccessId(appId, actingUser));
      if (access instanceof Promise) {
        access.then((found) => {
          if (!res.destroyed) this.forward(req, res, route, appId, requestId, caller, onBehalfOf, actingUser, found);
        }, this.deps.lookupFailed(res, requestId));
      } else this.forward(req, res, route, appId, requestId, caller, onBehalfOf, actingUser, access);
    } else this.forward(req, res, route, appId, requestId, caller, undefined, undefined, undefined);
  }

  /** Past authentication and the rate limit: the acting user's role, then idempotency or plain proxying. */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: RouteSpec,
    appId: string,
    requestId: string,
    caller: Caller,
    /** Forwarded to the service (the catalogue's rule; a client's: the token's user). */
    onBehalfOf: string | undefined,
    /** Whose role gates the call (`gatedUser`): the forwarded user, or the header on a gated app-run route. */
    actingUser: string | undefined,
    /** The acting user's role rules; null: no active user has that uid; undefined: no acting user. */
    access: RoleAccess | null | undefined,
  ): void {
    if (actingUser !== undefined && access === null) {
      return sendError(res, 'ERR_UID_NOT_FOUND', `The onBehalfOf user ${actingUser} does not exist or is deactivated.`, requestId);
    }
    const denial = access ? roleDenial(route.operationId, access) : null;
    if (denial) return sendError(res, 'ERR_PERMISSION_DENIED', denial, requestId);
    const headers = forwardedHeaders(req, requestId);
    this.deps.tracing.inject(req, headers);
    headers[internalHeaders.appId] = appId;
    headers[internalHeaders.keyId] = caller.keyId;
    headers[internalHeaders.scope] = caller.scope;
    if (caller.authTokenId !== undefined) headers[internalHeaders.authTokenId] = caller.authTokenId;
    if (onBehalfOf !== undefined) headers[internalHeaders.onBehalfOf] = onBehalfOf;
    // Value-level limits need the body, which the gateway streams: the service that parses it applies them.
    const limits = access ? roleLimits(route.operationId, access) : null;
    if (limits) headers[internalHeaders.roleLimits] = encodeURIComponent(JSON.stringify(limits));
    const { idempotent } = this.deps;
    const idempotencyKey = idempotent && IDEMPOTENT_METHODS.has(req.method ?? '') ? idempotencyKeyOf(req) : undefined;
    if (idempotencyKey === null) {
      return sendError(res, 'ERR_INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key: 1–255 visible ASCII characters.', requestId);
    }
    const upstream = this.deps.pick(route.service, appId, onBehalfOf);
    if (idempotent && idempotencyKey !== undefined) {
      const scope = { appId, keyId: caller.keyId, idempotencyKey, onBehalfOf };
      void idempotent.forward(req, res, upstream, headers, scope, requestId);
    } else this.deps.proxy.forward(req, res, upstream, headers, requestId);
  }
}
