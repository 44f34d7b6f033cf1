import { parseKnownEvent, topics, deadLetterTopic } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { consumerGroupFor, ensureTopics, EventConsumer, KafkaEventPublisher, startRelay } from '@chat/kafka';
import type { createKafka } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { BoundedPublisher } from './adapters/boundedPublisher.js';
import { ApiKeyCacheInvalidator } from './adapters/cacheInvalidator.js';
import { ManagementReadModels } from './adapters/readModels.js';
import { ManagementCommands, keyHashesOf } from './app/commands.js';
import { ManagementQueries } from './app/queries.js';
import type { ManagementConfig } from './config.js';
import { apiKeysRouter, internalRouter, managementRouter } from './http/routers.js';

export const PROJECTION_GROUP = 'management.projections';
/** How long a command waits for Kafka before leaving its commit to the relay. */
const PUBLISH_WAIT_MS = 1_500;

export interface ManagementDeps {
  db: Db;
  kafka: ReturnType<typeof createKafka>;
  redis: Redis;
  logger: Logger;
  clock?: () => Date;
}

export interface ManagementService {
  app: Express;
  consumers: readonly EventConsumer[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Composition root: wires the store, read models, Kafka and Redis into the HTTP app and consumer. */
export function createManagementService(config: Readonly<ManagementConfig>, deps: ManagementDeps): ManagementService {
  const { db, kafka, redis, logger } = deps;
  const store = new MongoCommitStore(db);
  const readModels = new ManagementReadModels(db);
  const publisher = new KafkaEventPublisher(kafka, topics.management);
  const invalidator = new ApiKeyCacheInvalidator(redis, logger);
  const commands = new ManagementCommands({
    store,
    publisher: new BoundedPublisher(publisher, PUBLISH_WAIT_MS),
    readModels,
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

  // Our own topic, consumed by ourselves: heals a crash between append and projection, and repeats
  // the cache invalidation. Both are idempotent, so redelivery is harmless.
  const consumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(PROJECTION_GROUP, db.databaseName),
    topics: [topics.management],
    logger,
    handler: async (envelope) => {
      const event = parseKnownEvent(envelope);
      if (!event) {
        logger.warn({ eventId: envelope.id, type: envelope.type }, 'skipping an event this service does not understand');
        return;
      }
      await readModels.apply([event]);
      await invalidator.invalidate(keyHashesOf([event]));
    },
  });

  let relay: ReturnType<typeof startRelay> | undefined;
  return {
    app,
    consumers: [consumer],
    async start() {
      await store.ensureIndexes();
      await readModels.ensureIndexes();
      await ensureTopics(kafka, [topics.management, deadLetterTopic(PROJECTION_GROUP)]);
      await publisher.connect();
      relay = startRelay(store, publisher, logger);
      await consumer.start();
    },
    async stop() {
      invalidator.stop();
      await consumer.stop();
      await relay?.stop();
      await publisher.disconnect();
    },
  };
}
