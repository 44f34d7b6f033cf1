import { topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import type { createKafka } from '@chat/kafka';
import { createEventPipeline } from '@chat/runtime';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { ApiKeyCacheInvalidator } from './adapters/cacheInvalidator.js';
import { ManagementReadModels } from './adapters/readModels.js';
import { ManagementCommands, keyHashesOf } from './app/commands.js';
import { ManagementQueries } from './app/queries.js';
import type { ManagementConfig } from './config.js';
import { apiKeysRouter, internalRouter, managementRouter } from './http/routers.js';

export const PROJECTION_GROUP = 'management.projections';

export interface ManagementDeps {
  db: Db;
  kafka: ReturnType<typeof createKafka>;
  redis: Redis;
  logger: Logger;
  clock?: () => Date;
}

export interface ManagementService {
  app: Express;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Composition root: wires the store, read models, Kafka and Redis into the HTTP app and consumer. */
export function createManagementService(config: Readonly<ManagementConfig>, deps: ManagementDeps): ManagementService {
  const { db, kafka, redis, logger } = deps;
  const readModels = new ManagementReadModels(db);
  const invalidator = new ApiKeyCacheInvalidator(redis, logger);
  // Our own topic, consumed by ourselves: heals a crash between append and projection, and repeats
  // the cache invalidation. Both are idempotent, so redelivery is harmless.
  const pipeline = createEventPipeline({
    db,
    kafka,
    logger,
    publishesTo: topics.management,
    consumes: [topics.management],
    consumerPurpose: PROJECTION_GROUP,
    project: async (events) => {
      await readModels.apply(events);
      await invalidator.invalidate(keyHashesOf(events));
    },
    ownReadModels: readModels,
  });
  const commands = new ManagementCommands({
    runner: pipeline.runner,
    invalidator,
    logger,
    region: config.region,
    clock: deps.clock ?? (() => new Date()),
  });
  const queries = new ManagementQueries(readModels);

  const app = createServiceApp({
    logger,
    routers: [internalRouter(queries), managementRouter(commands, queries), apiKeysRouter(commands, queries)],
    bodyLimit: '16kb',
  });

  return {
    app,
    async start() {
      await readModels.ensureIndexes();
      await pipeline.start();
    },
    async stop() {
      invalidator.stop();
      await pipeline.stop();
    },
  };
}
