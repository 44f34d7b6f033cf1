import type { RateLimits } from './rateLimit.js';
import { serviceNames } from '@chat/contracts';
import type { ServiceName } from '@chat/contracts';
import { z } from 'zod';

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

const schema = z.object({
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/, 'must be a lower-case DNS name')
    .default('chat.localhost'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  USERS_URL: upstreamUrls,
  CONVERSATIONS_URL: upstreamUrls,
  MESSAGES_URL: upstreamUrls,
  MANAGEMENT_URL: upstreamUrls,
  WEBHOOKS_URL: upstreamUrls,
  NOTIFICATIONS_URL: upstreamUrls,
  MANAGEMENT_KEY: z.string().min(1),
  MANAGEMENT_SECRET: z.string().min(1),
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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface GatewayConfig {
  port: number;
  host: string;
  region: string;
  domain: string;
  redisUrl: string;
  /** Each service's replicas (at least one), in the order configured. */
  upstreams: Readonly<Record<ServiceName, readonly Upstream[]>>;
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

/** The only reader of process.env in the gateway. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<GatewayConfig> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`gateway: invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const upstreams: Record<ServiceName, readonly Upstream[]> = {
    users: e.USERS_URL,
    conversations: e.CONVERSATIONS_URL,
    messages: e.MESSAGES_URL,
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
    region: e.REGION,
    domain: e.DOMAIN,
    redisUrl: e.REDIS_URL,
    upstreams: Object.freeze(upstreams),
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
