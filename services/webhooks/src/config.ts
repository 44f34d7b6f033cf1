import { privateAddressPolicy, secretKeysSetting } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { parseEnvironment } from '@chat/contracts';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';
import type { RetryPolicy } from './domain/retrySchedule.js';

export interface WebhooksConfig extends ServiceConfig {
  region: string;
  webhookSecretsKey: string;
  /** Which internal addresses webhook URLs may reach (`TENANT_URLS_ALLOW_PRIVATE`, ADR 0038). */
  tenantUrls: PrivateAddressPolicy;
  retry: RetryPolicy;
  /** Deliveries in flight per webhook: a slow endpoint holds only its own slots. */
  concurrencyPerEndpoint: number;
  requestTimeoutMs: number;
  /** How long new events' deliveries wait for their first attempt before they are stored as queued. */
  firstAttemptWaitMs: number;
}


const schema = z.object({
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  /** Keyring (`<hex>[,<older hex>…]`, ADR 0039), the same as management's. */
  WEBHOOK_SECRETS_KEY: secretKeysSetting,
  TENANT_URLS_ALLOW_PRIVATE: z.string().default('false'),
  // Retries: 5 s doubling up to 1 h between attempts, for 24 h; tests shrink all three.
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(1).default(3_600_000),
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().min(0).default(86_400_000),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: z.coerce.number().int().min(1).max(256).default(8),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_FIRST_ATTEMPT_WAIT_MS: z.coerce.number().int().min(0).max(5_000).default(200),
});

/** The only reader of process.env in this service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<WebhooksConfig> {
  const base = loadServiceConfig(env, { port: 3105, mongoDb: 'chat_webhooks' });
  const e = parseEnvironment('webhooks', schema, env);
  return Object.freeze({
    ...base,
    region: e.REGION,
    webhookSecretsKey: e.WEBHOOK_SECRETS_KEY,
    tenantUrls: privateAddressPolicy(e.TENANT_URLS_ALLOW_PRIVATE),
    retry: Object.freeze({ baseMs: e.WEBHOOK_RETRY_BASE_MS, maxMs: e.WEBHOOK_RETRY_MAX_MS, windowMs: e.WEBHOOK_RETRY_WINDOW_MS }),
    concurrencyPerEndpoint: e.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    requestTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    firstAttemptWaitMs: e.WEBHOOK_FIRST_ATTEMPT_WAIT_MS,
  });
}
