import { logLevelSetting, parseEnvironment, portSetting } from '@chat/contracts';
import { DEFAULT_ADMISSION } from '@chat/http';
import { loadKafkaSecurity, loadTopicSettings } from '@chat/kafka';
import type { KafkaSecurity, TopicSettings } from '@chat/kafka';
import type { AdmissionLimits } from '@chat/http';
import { z } from 'zod';
import type { BacklogLimits } from './backlogPolicy.js';

/** What runService needs to run any service process: where it listens, its store, its broker, its logs. */
export interface ProcessConfig {
  port: number;
  host: string;
  mongoUrl: string;
  mongoDb: string;
  kafkaBrokers: readonly string[];
  /** TLS and SASL towards the brokers (KAFKA_SSL…, KAFKA_SASL…; ADR 0041). */
  kafkaSecurity: KafkaSecurity;
  logLevel: string;
  /**
   * How the topics this service creates are laid out and kept: partitions (KAFKA_PARTITIONS, the most
   * replicas that share its consumption), replication and retention (for good by default; ADR 0051).
   */
  topicSettings: TopicSettings;
  /** Bounds on the requests the service works on and lets wait (503 past them); none: unbounded. */
  admission?: AdmissionLimits;
  /** When writes that fan out are refused for the consumers' backlog (see ServiceConfig); none: never. */
  backlog?: BacklogLimits & { intervalMs: number };
}

export interface ServiceConfig extends ProcessConfig {
  /** Bounds on the requests the service works on and lets wait (503 past them). */
  admission: AdmissionLimits;
  /**
   * How long a configuration directory (webhooks, notifications) waits for its watch to reach the
   * configuration topic's watermarks, or for the read model to apply what it saw, before it goes on
   * (CONFIG_FENCE_TIMEOUT_MS, ADR 0035).
   */
  configFenceTimeoutMs: number;
  /**
   * When a service that produces fan-out (the send path) refuses writes because the deployment's
   * consumers fall behind it (BACKLOG_MAX_DRAIN_MS, 0 = never; BACKLOG_MIN_LAG; read every
   * BACKLOG_CHECK_INTERVAL_MS; ADR 0054).
   */
  backlog: BacklogLimits & { intervalMs: number };
}

export type { TopicSettings };

/**
 * The environment variables of ProcessConfig, for a service's own schema to extend: PORT (required
 * when the service has no default), HOST, MONGO_URL, MONGO_DB, KAFKA_BROKERS and LOG_LEVEL.
 */
export function processSettings(defaults: { port?: number; mongoDb: string }) {
  return {
    PORT: portSetting(defaults.port),
    HOST: z.string().min(1).default('127.0.0.1'),
    MONGO_URL: z.string().min(1).default('mongodb://127.0.0.1:27017'),
    MONGO_DB: z.string().min(1).default(defaults.mongoDb),
    KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:9092'),
    LOG_LEVEL: logLevelSetting,
  };
}

/** ProcessConfig from the variables `processSettings` parsed, and the Kafka security and topic variables. */
export function processConfigOf(
  parsed: { PORT: number; HOST: string; MONGO_URL: string; MONGO_DB: string; KAFKA_BROKERS: string; LOG_LEVEL: string },
  env: NodeJS.ProcessEnv,
): ProcessConfig {
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    mongoUrl: parsed.MONGO_URL,
    mongoDb: parsed.MONGO_DB,
    kafkaBrokers: Object.freeze(parsed.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean)),
    kafkaSecurity: loadKafkaSecurity(env),
    logLevel: parsed.LOG_LEVEL,
    topicSettings: loadTopicSettings(env),
  };
}

/**
 * What every event-sourced service reads from its environment. Each service's own config.ts calls
 * this with its defaults, so config.ts stays the only reader of process.env in that service.
 */
export function loadServiceConfig(env: NodeJS.ProcessEnv, defaults: { port: number; mongoDb: string }): Readonly<ServiceConfig> {
  const schema = z.object({
    ...processSettings(defaults),
    MAX_IN_FLIGHT_REQUESTS: z.coerce.number().int().min(1).default(DEFAULT_ADMISSION.maxInFlight),
    MIN_IN_FLIGHT_REQUESTS: z.coerce.number().int().min(1).default(DEFAULT_ADMISSION.minInFlight),
    TARGET_LATENCY_MS: z.coerce.number().int().min(1).default(DEFAULT_ADMISSION.targetLatencyMs),
    MAX_QUEUED_REQUESTS: z.coerce.number().int().min(0).default(DEFAULT_ADMISSION.maxQueued),
    MAX_QUEUE_WAIT_MS: z.coerce.number().int().min(0).default(DEFAULT_ADMISSION.maxQueueWaitMs),
    CONFIG_FENCE_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    BACKLOG_MAX_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
    BACKLOG_MIN_LAG: z.coerce.number().int().min(1).default(1_000),
    BACKLOG_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  });
  const parsed = parseEnvironment('service', schema, env);
  return Object.freeze({
    ...processConfigOf(parsed, env),
    admission: {
      maxInFlight: parsed.MAX_IN_FLIGHT_REQUESTS,
      minInFlight: Math.min(parsed.MIN_IN_FLIGHT_REQUESTS, parsed.MAX_IN_FLIGHT_REQUESTS),
      targetLatencyMs: parsed.TARGET_LATENCY_MS,
      maxQueued: parsed.MAX_QUEUED_REQUESTS,
      maxQueueWaitMs: parsed.MAX_QUEUE_WAIT_MS,
    },
    configFenceTimeoutMs: parsed.CONFIG_FENCE_TIMEOUT_MS,
    backlog: { maxDrainMs: parsed.BACKLOG_MAX_DRAIN_MS, minLag: parsed.BACKLOG_MIN_LAG, intervalMs: parsed.BACKLOG_CHECK_INTERVAL_MS },
  });
}
