import { privateAddressPolicy, secretKeysSetting } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { parseEnvironment } from '@chat/contracts';
import { usersUrlSetting } from '@chat/http';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';
import type { ProviderEndpoints } from './adapters/providers/endpoints.js';

export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Provider calls per notification, first included. */
  maxAttempts: number;
}

export interface NotificationsConfig extends ServiceConfig {
  region: string;
  secretsKey: string;
  /** Which internal addresses custom provider URLs may reach (`TENANT_URLS_ALLOW_PRIVATE`, ADR 0038). */
  tenantUrls: PrivateAddressPolicy;
  retry: RetryPolicy;
  /** Provider calls in flight per provider of an app: a slow provider holds only its own slots. */
  concurrencyPerProvider: number;
  requestTimeoutMs: number;
  /** How long a run of messages waits for its sends' first provider calls before storing the rest as pending. */
  firstAttemptWaitMs: number;
  /** Where the FCM, APNs, Twilio and SendGrid adapters send (tests point them at local fakes). */
  endpoints: ProviderEndpoints;
  /** The timezone of a user who never set one. */
  defaultTimezone: string;
  /** The users service's replica origins (`USERS_URL`): whose auth token a push token is registered with (ADR 0144). */
  usersUrls: string[];
}

const url = z.string().url().transform((u) => u.replace(/\/+$/, ''));

const schema = z.object({
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  /** Keyring (`<hex>[,<older hex>…]`, ADR 0039): seals provider credentials. */
  NOTIFICATIONS_SECRETS_KEY: secretKeysSetting,
  TENANT_URLS_ALLOW_PRIVATE: z.string().default('false'),
  // Push is worth little late: 1 s doubling up to 1 min, 5 calls in all; tests shrink the delays.
  NOTIFICATION_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1_000),
  NOTIFICATION_RETRY_MAX_MS: z.coerce.number().int().min(1).default(60_000),
  NOTIFICATION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  NOTIFICATION_CONCURRENCY_PER_PROVIDER: z.coerce.number().int().min(1).max(512).default(64),
  NOTIFICATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  NOTIFICATION_FIRST_ATTEMPT_WAIT_MS: z.coerce.number().int().min(0).max(5_000).default(200),
  NOTIFICATION_DEFAULT_TIMEZONE: z.string().default('UTC'),
  USERS_URL: usersUrlSetting,
  FCM_BASE_URL: url.default('https://fcm.googleapis.com'),
  FCM_TOKEN_URL: url.default('https://oauth2.googleapis.com/token'),
  APNS_BASE_URL: url.default('https://api.push.apple.com'),
  APNS_SANDBOX_BASE_URL: url.default('https://api.sandbox.push.apple.com'),
  TWILIO_BASE_URL: url.default('https://api.twilio.com'),
  SENDGRID_BASE_URL: url.default('https://api.sendgrid.com'),
});

/** The only reader of process.env in this service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<NotificationsConfig> {
  const base = loadServiceConfig(env, { port: 3106, mongoDb: 'chat_notifications' });
  const e = parseEnvironment('notifications', schema, env);
  return Object.freeze({
    ...base,
    region: e.REGION,
    secretsKey: e.NOTIFICATIONS_SECRETS_KEY,
    tenantUrls: privateAddressPolicy(e.TENANT_URLS_ALLOW_PRIVATE),
    retry: Object.freeze({ baseMs: e.NOTIFICATION_RETRY_BASE_MS, maxMs: e.NOTIFICATION_RETRY_MAX_MS, maxAttempts: e.NOTIFICATION_MAX_ATTEMPTS }),
    concurrencyPerProvider: e.NOTIFICATION_CONCURRENCY_PER_PROVIDER,
    requestTimeoutMs: e.NOTIFICATION_TIMEOUT_MS,
    firstAttemptWaitMs: e.NOTIFICATION_FIRST_ATTEMPT_WAIT_MS,
    endpoints: Object.freeze({
      fcm: e.FCM_BASE_URL,
      fcmToken: e.FCM_TOKEN_URL,
      apns: e.APNS_BASE_URL,
      apnsSandbox: e.APNS_SANDBOX_BASE_URL,
      twilio: e.TWILIO_BASE_URL,
      sendgrid: e.SENDGRID_BASE_URL,
    }),
    defaultTimezone: e.NOTIFICATION_DEFAULT_TIMEZONE,
    usersUrls: e.USERS_URL,
  });
}
