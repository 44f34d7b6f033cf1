import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  API_KEY_INVALIDATION_CHANNEL,
  APP_ID_PATTERN,
  AUTH_TOKEN_SCOPE,
  REQUEST_ID_PATTERN,
  deprecationHeaders,
  internalHeaders,
  routeCatalog,
  serviceNames,
} from '@chat/contracts';
import type { ApiKeyIdentity, AuthTokenOwner, RouteSpec } from '@chat/contracts';
import { Probes, counter, createLogger, sampledGauge } from '@chat/http';
import type { Logger } from 'pino';
import { ManagementCredentials, decideChatAccess, refuseForeignKey, sha256Hex } from './auth.js';
import { CredentialCheck, authFailureCounter } from './credentialCheck.js';
import type { CredentialKind } from './credentialCheck.js';
import { decideClientAccess, ownPathUid } from './clientAccess.js';
import { AuthTokenResolver, usersAuthTokenLookups } from './authTokens.js';
import type { AuthTokenLoad } from './authTokens.js';
import { FailureBudget } from './failureBudget.js';
import { ManagementLogin } from './managementLogin.js';
import { EdgeTracing } from './edgeTracing.js';
import type { Refusal } from './auth.js';
import type { GatewayConfig } from './config.js';
import { IdempotentForwarder } from './idempotency.js';
import type { IdempotencyStore } from './idempotency.js';
import { managementLookups } from './lookups.js';
import type { ManagementLookups } from './lookups.js';
import { UpstreamProxy, sendError } from './proxy.js';
import { RateLimiter } from './rateLimit.js';
import type { WindowCounterStore } from './rateLimit.js';
import { roleAccessCache, usersRoleLookups } from './roleAccess.js';
import type { RoleLookups } from './roleAccess.js';
import { OWN_PATHS, adminListener, answersOwnPath, ownRoutesApp } from './ownRoutes.js';
import { RouteTable } from './routes.js';
import { fitsHost, parseHost } from './tenancy.js';
import { forwardedHeaders, single } from './forwardedHeaders.js';
import { probeConnection, upstreamPools } from './upstreamPool.js';
import type { HostTenancy } from './tenancy.js';
import type { TieredCache } from './tieredCache.js';
import type { RedisCache } from './tieredCache.js';
import { credentialCaches } from './credentialCaches.js';
import { RealtimeRoutes } from './realtimeRoutes.js';
import { ChatForwarding } from './chatForwarding.js';

/** The pub/sub side of Redis: a connection of its own, since a subscribed connection runs no commands. */
export interface InvalidationSubscriber {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

export interface GatewayDeps {
  redis: RedisCache;
  subscriber?: InvalidationSubscriber;
  fetchKey?: ManagementLookups['fetchKey'];
  fetchApp?: ManagementLookups['fetchApp'];
  /** Auth-token owners by the token's SHA-256 (default: the users service's internal endpoint). */
  fetchAuthToken?: AuthTokenLoad;
  /** The acting user's role rules, one user or many of an app (default: the users service's internal endpoints). */
  roleLookups?: RoleLookups;
  /** Shared rate-limit counters; without them each gateway enforces the limits on its own counts. */
  counters?: WindowCounterStore;
  /** The OpenAPI document served at /openapi.json (JSON text); main.ts reads docs/openapi.json. */
  apiDescription?: string;
  /** The demo page's script (gateway/dist/demo/app.js, ADR 0080); without it /demo answers 404. */
  demoScript?: string;
  /** Where Idempotency-Key answers are kept; without it the header is ignored. */
  idempotency?: IdempotencyStore;
  logger?: Logger;
}

export interface Gateway {
  server: Server;
  /** The listener of /healthz, /readyz and /metrics when `GATEWAY_ADMIN_PORT` is set. */
  adminServer: Server | undefined;
  handler: RequestListener;
  keys: TieredCache<ApiKeyIdentity>;
  /** Who an auth token authenticates (client access, the realtime channel). */
  authTokens: AuthTokenResolver;
  /** What /readyz checks; main.ts adds its own (Redis). */
  probes: Probes;
  /** Subscribes to invalidations and listens; resolves with the bound port. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

const LOOKUP_TIMEOUT_MS = 3_000;
/** Client addresses whose failed authentications are remembered (a bucket is a few dozen bytes). */
const FAILURE_SOURCES = 100_000;
const SHUTDOWN_GRACE_MS = 10_000;

const HEALTH_BODY = JSON.stringify({ status: 'ok' });

export function createGateway(config: Readonly<GatewayConfig>, deps: GatewayDeps): Gateway {
  const logger = deps.logger ?? createLogger('gateway', config.logLevel);
  const routes = new RouteTable(routeCatalog);
  const authFailures = authFailureCounter();
  // Guessing costs the guesser (ADR 0040): a source past its failures is refused before any look-up.
  const managementLogin = new ManagementLogin(
    new ManagementCredentials(config.managementKey, config.managementSecret),
    new FailureBudget({ ...config.managementLoginFailures, capacity: FAILURE_SOURCES }),
    config.trustedProxies,
    logger,
    (outcome) => authFailures.inc({ kind: 'management', outcome }),
  );
  const remote = managementLookups(config.managementUrl, LOOKUP_TIMEOUT_MS);
  const onCacheError = (what: string) => (error: unknown, context: string) => logger.error({ err: error }, `${what}: ${context} failed`);
  const { keys, apps } = credentialCaches(deps, remote, onCacheError);
  const credentialCheck = new CredentialCheck(new FailureBudget({ ...config.authFailures, capacity: FAILURE_SOURCES }), config.trustedProxies);
  const apiKeyKind: CredentialKind<ApiKeyIdentity> = { name: 'apikey', source: keys };

  const pools = upstreamPools(config.upstreams, { probe: probeConnection });
  const tracing = new EdgeTracing();
  // Metrics that cost the request path nothing: failures only, and queues read at scrape time.
  const upstreamErrors = counter('gateway_upstream_errors_total', 'Forwarded requests that failed (refused, reset or timed out), per upstream.', ['upstream']);
  const proxy = new UpstreamProxy({
    alternativeTo: (failed, headers) => pools.alternativeTo(failed, single(headers[internalHeaders.appId]), single(headers[internalHeaders.onBehalfOf])),
    timeoutMs: config.upstreamTimeoutMs,
    maxSockets: config.upstreamMaxSockets,
    maxWaiting: config.upstreamMaxWaiting,
    onUpstreamError: (error, upstream, requestId) => {
      pools.markFailed(upstream);
      upstreamErrors.inc({ upstream: `${upstream.hostname}:${upstream.port}` });
      logger.error({ err: error, upstream, requestId }, 'upstream request failed');
    },
  });
  const probes = new Probes();
  let accepting = false;
  // Ready from listening until shutdown starts, so a load balancer drains this replica first.
  probes.add('listening', () => accepting);
  const ownRoutes = ownRoutesApp(probes, deps.apiDescription, deps.demoScript);
  let stopSampling: (() => void) | undefined;

  const users = config.upstreams.users[0]!;
  const usersUrl = `http://${users.hostname.includes(':') ? `[${users.hostname}]` : users.hostname}:${users.port}`;
  const roleLookups = usersRoleLookups(usersUrl, LOOKUP_TIMEOUT_MS);
  const roleAccess = roleAccessCache(deps.roleLookups ?? roleLookups, onCacheError('role access cache'));
  const tokenLookups = usersAuthTokenLookups(usersUrl, LOOKUP_TIMEOUT_MS);
  const authTokens = new AuthTokenResolver(deps.fetchAuthToken ?? tokenLookups.load, onCacheError('auth token cache'));
  const authTokenKind: CredentialKind<AuthTokenOwner> = { name: 'authtoken', source: authTokens };
  const rateLimiter = new RateLimiter(config.rateLimits, deps.counters, {
    syncIntervalMs: config.rateLimitSyncMs,
    onSyncError: (error) => logger.warn({ err: error }, 'rate-limit sync failed; counting locally'),
  });
  const idempotent = deps.idempotency
    ? new IdempotentForwarder(deps.idempotency, proxy, {
        waitLimitMs: config.upstreamTimeoutMs + 5_000,
        onError: (error, requestId) => logger.error({ err: error, requestId }, 'idempotent request failed'),
      })
    : undefined;

  const refuse = (res: ServerResponse, refusal: Refusal, requestId: string) => sendError(res, refusal.code, refusal.message, requestId);

  const lookupFailed = (res: ServerResponse, requestId: string) => (error: unknown) => {
    logger.error({ err: error, requestId }, 'credential lookup failed');
    if (!res.headersSent && !res.destroyed) {
      sendError(res, 'ERR_UPSTREAM_UNAVAILABLE', 'The apikey or authtoken cannot be verified right now; retry shortly.', requestId);
    }
  };

  const refuseForeign = (res: ServerResponse, appId: string, requestId: string): void => {
    const app = apps.get(appId);
    if (app instanceof Promise) {
      app.then((found) => {
        if (!res.destroyed) refuse(res, refuseForeignKey(found !== null, appId), requestId);
      }, lookupFailed(res, requestId));
    } else refuse(res, refuseForeignKey(app !== null, appId), requestId);
  };

  const authorizeChat = (
    req: IncomingMessage,
    res: ServerResponse,
    route: RouteSpec,
    appId: string,
    requestId: string,
    identity: ApiKeyIdentity | null,
  ): void => {
    if (res.destroyed) return; // the client left while its key was being looked up
    const decision = decideChatAccess(route, identity, appId, single(req.headers.onbehalfof));
    switch (decision.kind) {
      case 'refuse':
        refuse(res, decision.refusal, requestId);
        return;
      case 'foreign-key':
        refuseForeign(res, appId, requestId);
        return;
      case 'allow':
        chat.admit(req, res, route, appId, requestId, { keyId: decision.identity.keyId, scope: decision.identity.scope }, decision.onBehalfOf);
        return;
      default: {
        const unknown: never = decision;
        throw new Error(`unknown decision ${JSON.stringify(unknown)}`);
      }
    }
  };

  /** A client's call with an auth token (no API key): the token, then what a user may call (ADR 0070). */
  const authorizeClient = (req: IncomingMessage, res: ServerResponse, route: RouteSpec, appId: string, path: string, requestId: string, owner: AuthTokenOwner | null): void => {
    if (res.destroyed) return;
    const decision = decideClientAccess(route, owner, single(req.headers.onbehalfof), ownPathUid(route, path));
    if (decision.kind === 'refuse') return refuse(res, decision.refusal, requestId);
    const { uid, tokenId } = decision.owner;
    chat.admit(req, res, route, appId, requestId, { keyId: tokenId, scope: AUTH_TOKEN_SCOPE, authTokenId: tokenId }, uid);
  };

  const chat = new ChatForwarding({ rateLimiter, roleAccess, tracing, pick: pools.pick, proxy, idempotent, lookupFailed });

  const handleChat = (req: IncomingMessage, res: ServerResponse, route: RouteSpec, tenancy: HostTenancy, path: string, requestId: string): void => {
    const appId = tenancy.kind === 'chat' || tenancy.kind === 'calls' ? tenancy.appId : single(req.headers.appid);
    if (!appId) return sendError(res, 'AUTH_ERR_EMPTY_APPID', 'The appId header is required.', requestId);
    if (!APP_ID_PATTERN.test(appId)) return sendError(res, 'AUTH_ERR_INVALID_APPID', `The app ${appId} does not exist.`, requestId);
    // A server's API key wins; without one, a client may show its user's auth token (ADR 0070).
    const apiKey = single(req.headers.apikey);
    const authToken = single(req.headers.authtoken);
    let retryAfter: number;
    if (apiKey) {
      const isThisApps = (found: ApiKeyIdentity | null) => found !== null && found.appId === appId;
      const then = (found: ApiKeyIdentity | null) => authorizeChat(req, res, route, appId, requestId, found);
      retryAfter = credentialCheck.resolve(req, apiKeyKind, sha256Hex(apiKey), isThisApps, then, lookupFailed(res, requestId));
    } else if (authToken) {
      const then = (found: AuthTokenOwner | null) => authorizeClient(req, res, route, appId, path, requestId, found);
      retryAfter = credentialCheck.resolve(req, authTokenKind, AuthTokenResolver.idOf(appId, authToken), (found) => found !== null, then, lookupFailed(res, requestId));
    } else return sendError(res, 'AUTH_ERR_EMPTY_APIKEY', "The apikey header (or a user's authtoken) is required.", requestId);
    if (retryAfter > 0) {
      sendError(res, 'ERR_TOO_MANY_REQUESTS', `Too many failed authentications from this address; retry in ${retryAfter} s.`, requestId, retryAfter);
    }
  };

  const handleManagement = (req: IncomingMessage, res: ServerResponse, route: RouteSpec, requestId: string): void => {
    const refused = managementLogin.check(req, single(req.headers.key), single(req.headers.secret), requestId);
    if (refused) return sendError(res, refused.refusal.code, refused.refusal.message, requestId, refused.retryAfter);
    const headers = forwardedHeaders(req, requestId);
    tracing.inject(req, headers);
    headers[internalHeaders.management] = '1';
    proxy.forward(req, res, pools.pick(route.service), headers, requestId);
  };

  const authenticateToken = (req: IncomingMessage, appId: string, token: string) =>
    new Promise<AuthTokenOwner | null | number>((resolve, reject) => {
      const retryAfter = credentialCheck.resolve(req, authTokenKind, AuthTokenResolver.idOf(appId, token), (found) => found !== null, resolve, reject);
      if (retryAfter > 0) resolve(retryAfter);
    });
  const realtime = new RealtimeRoutes({ domain: config.domain, region: config.region, upstreams: config.realtimeUpstreams, authenticate: authenticateToken, logger });
  const handler: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const givenId = req.headers[internalHeaders.requestId];
    const requestId = typeof givenId === 'string' && REQUEST_ID_PATTERN.test(givenId) ? givenId : randomUUID();
    // Before the access log and the edge span: the realtime paths carry the auth token in the query.
    if (realtime.handles(path)) return realtime.handle(req, res, path, requestId);

    if (config.accessLogSampleRate > 0 && Math.random() < config.accessLogSampleRate) {
      const started = performance.now();
      res.once('finish', () =>
        logger.info({ requestId, method: req.method, path, status: res.statusCode, ms: +(performance.now() - started).toFixed(2) }, 'request'),
      );
    }

    if (OWN_PATHS.has(path)) {
      // Operators' pages and figures are not a tenant's to read (ADR 0040): not on tenant hosts.
      if (answersOwnPath(path, parseHost(req.headers.host, config.domain, config.region), config.adminPort !== undefined)) return void ownRoutes(req, res);
      return sendError(res, 'ERR_API_NOT_FOUND', `No operation ${req.method ?? ''} ${path}.`, requestId);
    }
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': HEALTH_BODY.length, 'x-request-id': requestId });
      res.end(req.method === 'GET' ? HEALTH_BODY : undefined);
      return;
    }

    tracing.begin(req, res, path, requestId);
    const tenancy = parseHost(req.headers.host, config.domain, config.region);
    if (tenancy.kind === 'foreign-region') {
      return sendError(
        res,
        'AUTH_ERR_INVALID_APPID',
        `This deployment serves region '${config.region}'; the host names region '${tenancy.region}'.`,
        requestId,
      );
    }

    const route = routes.match(req.method ?? 'GET', path);
    if (!route || !fitsHost(route, tenancy)) {
      return sendError(res, 'ERR_API_NOT_FOUND', `No operation ${req.method ?? ''} ${path}.`, requestId);
    }
    tracing.routed(req, route);
    const deprecation = deprecationHeaders(route.operationId);
    if (deprecation) for (const [name, value] of Object.entries(deprecation)) res.setHeader(name, value);
    if (route.api === 'management') handleManagement(req, res, route, requestId);
    else handleChat(req, res, route, tenancy, path, requestId);
  };

  const server = createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, handler);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const givenId = req.headers[internalHeaders.requestId];
    realtime.upgrade(req, socket, head, typeof givenId === 'string' && REQUEST_ID_PATTERN.test(givenId) ? givenId : randomUUID());
  });
  const adminServer = config.adminPort === undefined ? undefined : createServer(adminListener(probes));
  const listen = (target: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      target.once('error', reject);
      target.listen(port, config.host, () => {
        target.off('error', reject);
        resolve();
      });
    });
  const onInvalidation = (channel: string, keyHash: string) => {
    if (channel === API_KEY_INVALIDATION_CHANNEL) keys.invalidate(keyHash);
  };

  return {
    server,
    adminServer,
    handler,
    keys,
    authTokens,
    probes,
    async start() {
      rateLimiter.start();
      stopSampling = sampledGauge('gateway_upstream_waiting', 'Requests waiting for a socket to an upstream.', ['service'], () =>
        serviceNames.map((service) => ({
          labels: { service },
          value: config.upstreams[service].reduce((sum, replica) => sum + proxy.waitingFor(replica), 0),
        })),
      );
      if (deps.subscriber) {
        deps.subscriber.on('message', onInvalidation);
        // Not awaited: with Redis down the subscription waits for it (and fails after its retries),
        // while the gateway must serve meanwhile. The client resubscribes by itself after a reconnect;
        // until then the key cache's short TTL bounds how long a revoked key is still honoured.
        deps.subscriber.subscribe(API_KEY_INVALIDATION_CHANNEL).catch((error: unknown) => {
          logger.warn({ err: error }, 'subscribing to key invalidations failed; the client retries on reconnect');
        });
      }
      if (adminServer && config.adminPort !== undefined) await listen(adminServer, config.adminPort);
      await listen(server, config.port);
      accepting = true;
      return (server.address() as AddressInfo).port;
    },
    async stop() {
      accepting = false;
      stopSampling?.();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      realtime.close(); // realtime clients never end by themselves: they resume elsewhere with their cursor
      // Requests in flight get a grace period; connections still open after it are cut.
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      await closed;
      clearTimeout(force);
      if (adminServer) {
        const adminClosed = new Promise<void>((resolve) => adminServer.close(() => resolve()));
        adminServer.closeAllConnections();
        await adminClosed;
      }
      if (deps.subscriber) await deps.subscriber.unsubscribe(API_KEY_INVALIDATION_CHANNEL).catch(() => undefined);
      rateLimiter.stop();
      proxy.close();
      await Promise.all([remote.close(), roleLookups.close(), tokenLookups.close()]);
    },
  };
}
