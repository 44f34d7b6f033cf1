import { parseKnownEvent, topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { consumerGroupFor, ensureTopics, EventConsumer, KafkaEventPublisher, startRelay } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { Express } from 'express';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { UserReadModels } from './adapters/readModels.js';
import { UsersApp } from './app/users.js';
import { usersRouter } from './http/router.js';

export interface UsersServiceDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/** Composition root of the users service. */
export function createUsersService(deps: UsersServiceDeps) {
  const { db, kafka, logger } = deps;
  const store = new MongoCommitStore(db);
  const publisher = new KafkaEventPublisher(kafka, topics.users);
  const readModels = new UserReadModels(db);
  const app = new UsersApp({ store, publisher, readModels, logger });
  // CometChat's documented request limit for user writes is 10 KB.
  const http: Express = createServiceApp({ logger, routers: [usersRouter(app)], bodyLimit: '10kb' });
  // Commands project their own events before answering; this consumer heals a read model whose
  // process died between the append and that step (the guard makes the second apply a no-op).
  const consumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor('users.read-models', db.databaseName),
    topics: [topics.users],
    logger,
    handler: async (envelope) => {
      const event = parseKnownEvent(envelope);
      if (event) await readModels.apply(event);
    },
  });
  let relay: ReturnType<typeof startRelay> | null = null;

  return {
    http,
    async start() {
      await Promise.all([store.ensureIndexes(), readModels.ensureIndexes()]);
      await ensureTopics(kafka, [topics.users]);
      await publisher.connect();
      await consumer.start();
      relay = startRelay(store, publisher, logger);
    },
    async stop() {
      await relay?.stop();
      await consumer.stop();
      await publisher.disconnect();
    },
  };
}
