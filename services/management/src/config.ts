import { privateAddressPolicy, secretKeysSetting } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { parseEnvironment } from '@chat/contracts';
import { processConfigOf, processSettings } from '@chat/runtime';
import type { ProcessConfig } from '@chat/runtime';
import { z } from 'zod';

const schema = z.object({
  // PORT has no default: every deployment names it.
  ...processSettings({ mongoDb: 'chat_management' }),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** The one region this deployment serves (DESIGN §2). */
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  /** Keyring (`<hex>[,<older hex>…]`, ADR 0039): seals webhook secrets and passwords; the webhooks process holds the same. */
  WEBHOOK_SECRETS_KEY: secretKeysSetting,
  /** Which internal addresses tenant URLs may name: false, true (development) or CIDRs (ADR 0038). */
  TENANT_URLS_ALLOW_PRIVATE: z.string().default('false'),
  /** Audit trail (ADR 0034): entries kept per API key (at least this many, at most one chunk more). */
  AUDIT_RETENTION_ENTRIES: z.coerce.number().int().min(1_000).max(1_000_000).default(10_000),
  /** Audit trail: entries per chunk document. */
  AUDIT_CHUNK_ENTRIES: z.coerce.number().int().min(10).max(1_000).default(200),
});

/**
 * No admission limits and no backlog gate (runService leaves them out): every chat request's key
 * look-up lands here, and management produces no fan-out.
 */
export interface ManagementConfig extends ProcessConfig {
  redisUrl: string;
  region: string;
  webhookSecretsKey: string;
  tenantUrls: PrivateAddressPolicy;
  audit: { retainedEntries: number; chunkEntries: number };
}

/** The only reader of process.env in this service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ManagementConfig> {
  const e = parseEnvironment('management', schema, env);
  return Object.freeze({
    ...processConfigOf(e, env),
    redisUrl: e.REDIS_URL,
    region: e.REGION,
    webhookSecretsKey: e.WEBHOOK_SECRETS_KEY,
    tenantUrls: privateAddressPolicy(e.TENANT_URLS_ALLOW_PRIVATE),
    audit: Object.freeze({ retainedEntries: e.AUDIT_RETENTION_ENTRIES, chunkEntries: e.AUDIT_CHUNK_ENTRIES }),
  });
}
