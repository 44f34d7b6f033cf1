import { privateAddressPolicy } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { secretKeysSetting } from '@chat/contracts';
import { loadKafkaSecurity, loadTopicSettings } from '@chat/kafka';
import type { KafkaSecurity, TopicSettings } from '@chat/kafka';
import { z } from 'zod';

const schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65_535),
  HOST: z.string().min(1).default('127.0.0.1'),
  MONGO_URL: z.string().min(1).default('mongodb://127.0.0.1:27017'),
  MONGO_DB: z.string().min(1).default('chat_management'),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** The one region this deployment serves (DESIGN §2). */
  REGION: z.enum(['us', 'eu', 'in']).default('us'),
  /** Keyring (`<hex>[,<older hex>…]`, ADR 0039): seals webhook secrets and passwords; the webhooks process holds the same. */
  WEBHOOK_SECRETS_KEY: secretKeysSetting,
  /** Which internal addresses tenant URLs may name: false, true (development) or CIDRs (ADR 0038). */
  TENANT_URLS_ALLOW_PRIVATE: z.string().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Audit trail (ADR 0034): entries kept per API key (at least this many, at most one chunk more). */
  AUDIT_RETENTION_ENTRIES: z.coerce.number().int().min(1_000).max(1_000_000).default(10_000),
  /** Audit trail: entries per chunk document. */
  AUDIT_CHUNK_ENTRIES: z.coerce.number().int().min(10).max(1_000).default(200),
});

export interface ManagementConfig {
  port: number;
  host: string;
  mongoUrl: string;
  mongoDb: string;
  kafkaBrokers: readonly string[];
  /** TLS and SASL towards the brokers (KAFKA_SSL…, KAFKA_SASL…; ADR 0041). */
  kafkaSecurity: KafkaSecurity;
  redisUrl: string;
  region: string;
  webhookSecretsKey: string;
  tenantUrls: PrivateAddressPolicy;
  logLevel: string;
  audit: { retainedEntries: number; chunkEntries: number };
  topicSettings: TopicSettings;
}

/** The only reader of process.env in this service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ManagementConfig> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`management: invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    mongoUrl: e.MONGO_URL,
    mongoDb: e.MONGO_DB,
    kafkaBrokers: Object.freeze(e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean)),
    kafkaSecurity: loadKafkaSecurity(env),
    redisUrl: e.REDIS_URL,
    region: e.REGION,
    webhookSecretsKey: e.WEBHOOK_SECRETS_KEY,
    tenantUrls: privateAddressPolicy(e.TENANT_URLS_ALLOW_PRIVATE),
    logLevel: e.LOG_LEVEL,
    audit: Object.freeze({ retainedEntries: e.AUDIT_RETENTION_ENTRIES, chunkEntries: e.AUDIT_CHUNK_ENTRIES }),
    topicSettings: loadTopicSettings(env),
  });
}
