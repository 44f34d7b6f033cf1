import { ApiError, topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { EventConsumer, consumerGroupFor, ensureTopics } from '@chat/kafka';
import type { createKafka } from '@chat/kafka';
import { MongoDocumentStore } from '@chat/mongo';
import { createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { AUDIT_COLLECTION, AuditTrail } from './adapters/audit/auditTrail.js';
import { ApiKeyCacheInvalidator } from './adapters/cacheInvalidator.js';
import { ManagementReadModels } from './adapters/readModels.js';
import { keyHashesOf } from './app/appStream.js';
import { ManagementCommands } from './app/apps/commands.js';
import { ManagementQueries } from './app/apps/queries.js';
import { WebhookCommands } from './app/webhooks/webhookCommands.js';
import type { ManagementConfig } from './config.js';
import { apiKeysRouter, internalRouter, managementRouter, tenantsRouter } from './http/apps/routers.js';
import { webhooksRouter } from './http/webhooks/webhookRoutes.js';
import { opsRouter } from './http/ops/opsRoutes.js';
import { auditRouter } from './http/audit/auditRoutes.js';
import { AuditQueries } from './app/audit/auditQueries.js';
import { mayBeAudited } from './domain/audit/auditLog.js';
import { SecretBox } from '@chat/delivery';

export const PROJECTION_GROUP = 'management.projections';
/** The per-key audit trail's consumer group (ADR 0034): every topic, apart from the key projection's group. */
export const AUDIT_GROUP = 'management.audit';
/** How the audit consumer batches (see `EventConsumerOptions.gather`). */
const AUDIT_GATHER = { minBytes: 512 * 1024, maxWaitMs: 1_000 };

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface ManagementDeps extends PlatformDeps {
  db: Db;
  kafka: ReturnType<typeof createKafka>;
  redis: Redis;
  logger: Logger;
  clock?: () => Date;
}

/** Composition root: wires the store, read models, Kafka and Redis into the HTTP app and consumer. */
export function createManagementService(config: Readonly<ManagementConfig>, deps: ManagementDeps): RunnableService {
  const { db, kafka, redis, logger } = deps;
  const readModels = new ManagementReadModels(db);
  const invalidator = new ApiKeyCacheInvalidator(redis, logger);
  // Our own topic, consumed by ourselves: heals a crash between append and projection, and repeats
  // the cache invalidation. Both are idempotent, so redelivery is harmless. The webhooks process's
  // topic tells us which receivers answered 410 Gone, whose webhooks we then disable.
  const pipeline = createEventPipeline({
    db,
    kafka,
    logger,
    ...(deps.probes ? { probes: deps.probes } : {}),
    // Every chat request's key look-up lands here: only the store it reads takes management out of
    // rotation; Kafka away degrades writes and projections, not look-ups (ADR 0040).
    readinessGates: 'store',
    ...(deps.topicSettings ? { topicSettings: deps.topicSettings } : {}),
    publishesTo: topics.management,
    consumes: [topics.management, topics.webhooks],
    consumerPurpose: PROJECTION_GROUP,
    project: async (events) => {
      await readModels.apply(events);
      await invalidator.invalidate(keyHashesOf(events));
      await disableGoneWebhooks(webhookCommands, events);
    },
    ownReadModels: readModels,
  });
  const streamDeps = { runner: pipeline.runner, invalidator, logger, clock: deps.clock ?? (() => new Date()) };
  const commands = new ManagementCommands({ ...streamDeps, region: config.region });
  const secrets = new SecretBox(config.webhookSecretsKey);
  logger.info({ keyIds: secrets.keyIds }, 'webhook secrets keyring (the first seals)');
  const webhookCommands = new WebhookCommands({
    ...streamDeps,
    secrets,
    tenantUrls: config.tenantUrls,
  });
  const queries = new ManagementQueries(readModels);
  // Every topic's events, in a group of its own, so a busy message topic never delays a key's
  // revocation (the projection group above) and the trail can be rebuilt by resetting its offsets.
  const audit = new AuditTrail(new MongoDocumentStore(db, AUDIT_COLLECTION), config.audit);
  const auditTopics = Object.values(topics);
  const auditConsumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(AUDIT_GROUP, db.databaseName),
    topics: auditTopics,
    logger,
    handler: (events) => audit.apply(events),
    // Events no API key caused (system actors: deliveries, notifications, projections' own streams)
    // are skipped from the `keyId` header, undecoded (ADR 0044).
    select: (records) => records.map((r) => mayBeAudited(r.keyId)),
    // Up to a second of events per write: at 150 sends/s the trail took a tenth of the store's single
    // write core with a write per small batch; a trail a second behind costs a handful of writes.
    gather: AUDIT_GATHER,
  });

  const app = createServiceApp({
    logger,
    routers: [
      internalRouter(queries),
      managementRouter(commands, queries),
      webhooksRouter(webhookCommands, queries),
      tenantsRouter(commands),
      apiKeysRouter(commands, queries),
      auditRouter(new AuditQueries(queries, audit)),
      opsRouter(kafka),
    ],
    bodyLimit: '16kb',
  });

  return {
    http: app,
    async start() {
      await readModels.ensureIndexes();
      await pipeline.start();
      await ensureTopics(kafka, auditTopics, deps.topicSettings);
      await auditConsumer.start();
    },
    async stop() {
      invalidator.stop();
      await auditConsumer.stop();
      await pipeline.stop();
    },
  };
}

/** A 410 from a receiver disables its webhook; one already disabled, deleted or of a deleted app stays as it is. */
async function disableGoneWebhooks(commands: WebhookCommands, events: readonly KnownEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type !== 'DeliveryAttempted' || event.data.outcome !== 'gone') continue;
    try {
      await commands.disableGone(event.appId, event.data.webhookId, event.correlationId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
}
