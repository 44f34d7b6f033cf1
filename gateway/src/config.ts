import type { RateLimits } from './rateLimit.js';
import { logLevelSetting, parseEnvironment, portSetting, serviceNames } from '@chat/contracts';
import type { ServiceName } from '@chat/contracts';
import { z } from 'zod';
import { ProxyAddresses, normaliseAddress } from './clientSource.js';

export interface Upstream {
  hostname: string;
  port: number;
}

/** Upstreams are plain HTTP inside the deployment; the path is forwarded unchanged, so a base path would be lost. */
const upstreamUrl = z
  .string()
  .url()
  .transform((value, ctx): Upstream => {
    const url = new URL(value);
    if (url.protocol !== 'http:' || (url.pathname !== '/' && url.pathname !== '') || url.search) {
      ctx.addIssue({ code: 'custom', message: 'must be an http:// origin without a path, e.g. http://127.0.0.1:3001' });
      return z.NEVER;
    }
    return { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 80 };
  });

/** One service's replicas: one origin, or several separated by commas (the gateway balances across them). */
const upstreamUrls = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean))
  .pipe(z.array(upstreamUrl).min(1));

/** Values shipped as examples somewhere; a deployment that kept one has no secret at all. */
const PLACEHOLDERS = ['replaceme', 'changeme', 'changeit', 'placeholder', 'example', 'yourkey', 'yoursecret'];

/**
 * A management credential opens every app of the deployment: long enough not to be guessed, and not a
 * value copied from an example (ADR 0040). Placeholders are matched ignoring case and separators, also
 * as part of a longer value (`replace-me-with-64-hex-characters`).
 */
export const managementCredential = z
  .string()
  .min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)')
  .refine((value) => {
    const folded = value.toLowerCase().replace(/[^a-z0-9]/g, '');
    return !PLACEHOLDERS.some((placeholder) => folded.includes(placeholder));
  }, 'is a placeholder; generate a random value (e.g. openssl rand -hex 32)')
  // 32 random hex digits show about 14 different characters; 'aaaa…' or 'abab…' is typed, not drawn.
  .refine((value) => new Set(value).size >= 8, 'repeats too few characters to be random; generate one (e.g. openssl rand -hex 32)');

/** A comma-separated list of proxy addresses and CIDR ranges whose X-Forwarded-For is believed. */
const proxyAddresses = z
  .string()
  .default('')
  .transform((value, ctx) => {
    try {
      return new ProxyAddresses(value.split(',').map((part) => normaliseAddress(part.trim())).filter(Boolean));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `must list IP addresses or CIDR ranges: ${(error as Error).message}` });
      return z.NEVER;
    }
  });

const schema = z.object({
  GATEWAY_PORT: portSetting(3000),
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** When set, /readyz and /metrics are answered on this port only (and /healthz there too). */
  GATEWAY_ADMIN_PORT: portSetting().optional(),
  /** Proxies (load balancers) in front of the gateway whose X-Forwarded-For names the client. */
  GATEWAY_TRUSTED_PROXIES: proxyAddresses,
  /** Failed `apikey` authentications per client address: at once, and earned back per minute. */
  AUTH_FAILURE_BURST: z.coerce.number().int().min(1).default(50),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Failed management logins (`key`/`secret`) per client address. */
  MANAGEMENT_LOGIN_FAILURE_BURST: z.coerce.number().int().min(1).default(10),
  MANAGEMENT_LOGIN_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/, 'must be a lower-case DNS name')
    .default('chat.localhost'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  USERS_URL: upstreamUrls,
  CONVERSATIONS_URL: upstreamUrls,
  MESSAGES_URL: upstreamUrls,
  CALLS_URL: upstreamUrls,
  MANAGEMENT_URL: upstreamUrls,
  WEBHOOKS_URL: upstreamUrls,
  NOTIFICATIONS_URL: upstreamUrls,
  // The realtime channel (ADR 0069) is not in the route table: its own default keeps older set-ups starting.
  REALTIME_URL: z.string().default('http://127.0.0.1:3108').pipe(upstreamUrls),
  MANAGEMENT_KEY: managementCredential,
  MANAGEMENT_SECRET: managementCredential,
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
  UPSTREAM_MAX_SOCKETS: z.coerce.number().int().min(1).default(256),
  UPSTREAM_MAX_WAITING: z.coerce.number().int().min(0).default(256),
  /** Fraction of requests logged at info level; 0 keeps logging off the hot path. */
  ACCESS_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** Per-app requests per minute (CometChat's published figures by default). */
  RATE_LIMIT_STANDARD_PER_MINUTE: z.coerce.number().int().min(1).default(20_000),
  RATE_LIMIT_CORE_PER_MINUTE: z.coerce.number().int().min(1).default(10_000),
  /** Per-app limits, JSON: `{"<appId>": {"standard": 100, "core": 50}}` (either class may be left out). */
  RATE_LIMIT_APP_OVERRIDES: z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'RATE_LIMIT_APP_OVERRIDES must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), z.object({ standard: z.number().int().min(1), core: z.number().int().min(1) }).partial())),
  /** How often each replica adds its counts to Redis: the cross-replica tolerance (ADR 0010). */
  RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(10).max(5_000).default(100),
  LOG_LEVEL: logLevelSetting,
});

export interface GatewayConfig {
  port: number;
  host: string;
  /** Where /readyz and /metrics are answered instead of the API port; undefined: on the API port's plain and management hosts. */
  adminPort: number | undefined;
  trustedProxies: ProxyAddresses;
  authFailures: Readonly<FailureAllowance>;
  managementLoginFailures: Readonly<FailureAllowance>;
  region: string;
  domain: string;
  redisUrl: string;
  /** Each service's replicas (at least one), in the order configured. */
  upstreams: Readonly<Record<ServiceName, readonly Upstream[]>>;
  /** The realtime service's replicas (`REALTIME_URL`): WebSocket upgrades and event streams go there. */
  realtimeUpstreams: readonly Upstream[];
  /** Base URL of the management service, for its internal lookup endpoints. */
  managementUrl: string;
  managementKey: string;
  managementSecret: string;
  upstreamTimeoutMs: number;
  upstreamMaxSockets: number;
  /** Requests that may wait for a socket to one service before the gateway answers 503. */
  upstreamMaxWaiting: number;
  accessLogSampleRate: number;
  rateLimits: RateLimits;
  rateLimitSyncMs: number;
  logLevel: string;
}

export interface FailureAllowance {
  burst: number;
  perMinute: number;
}

/** The only reader of process.env in the gateway. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<GatewayConfig> {
  const e = parseEnvironment('gateway', schema, env);
  const upstreams: Record<ServiceName, readonly Upstream[]> = {
    users: e.USERS_URL,
    conversations: e.CONVERSATIONS_URL,
    messages: e.MESSAGES_URL,
    calls: e.CALLS_URL,
    management: e.MANAGEMENT_URL,
    webhooks: e.WEBHOOKS_URL,
    notifications: e.NOTIFICATIONS_URL,
  };
  for (const name of serviceNames) for (const upstream of upstreams[name]) Object.freeze(upstream);
  // The management lookups (keys, apps) go to its first replica; any replica answers them alike.
  const management = e.MANAGEMENT_URL[0]!;
  return Object.freeze({
    port: e.GATEWAY_PORT,
    host: e.GATEWAY_HOST,
    adminPort: e.GATEWAY_ADMIN_PORT,
    trustedProxies: e.GATEWAY_TRUSTED_PROXIES,
    authFailures: Object.freeze({ burst: e.AUTH_FAILURE_BURST, perMinute: e.AUTH_FAILURES_PER_MINUTE }),
    managementLoginFailures: Object.freeze({ burst: e.MANAGEMENT_LOGIN_FAILURE_BURST, perMinute: e.MANAGEMENT_LOGIN_FAILURES_PER_MINUTE }),
    region: e.REGION,
    domain: e.DOMAIN,
    redisUrl: e.REDIS_URL,
    upstreams: Object.freeze(upstreams),
    realtimeUpstreams: Object.freeze(e.REALTIME_URL.map((upstream) => Object.freeze(upstream))),
    managementUrl: `http://${management.hostname.includes(':') ? `[${management.hostname}]` : management.hostname}:${management.port}`,
    managementKey: e.MANAGEMENT_KEY,
    managementSecret: e.MANAGEMENT_SECRET,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamMaxSockets: e.UPSTREAM_MAX_SOCKETS,
    upstreamMaxWaiting: e.UPSTREAM_MAX_WAITING,
    accessLogSampleRate: e.ACCESS_LOG_SAMPLE_RATE,
    rateLimits: Object.freeze({ standard: e.RATE_LIMIT_STANDARD_PER_MINUTE, core: e.RATE_LIMIT_CORE_PER_MINUTE, apps: e.RATE_LIMIT_APP_OVERRIDES }),
    rateLimitSyncMs: e.RATE_LIMIT_SYNC_MS,
    logLevel: e.LOG_LEVEL,
  });
}
