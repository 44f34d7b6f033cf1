import { parseKnownEvent, topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { consumerGroupFor, ensureTopics, EventConsumer, KafkaEventPublisher, startRelay } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { Express } from 'express';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { MessagesReadModels } from './adapters/readModels.js';
import { MessagesApp } from './app/messages.js';
import { messagesRouter } from './http/router.js';

export interface MessagesServiceDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/** Composition root of the messages service. */
export function createMessagesService(deps: MessagesServiceDeps) {
  const { db, kafka, logger } = deps;
  const store = new MongoCommitStore(db);
  const publisher = new KafkaEventPublisher(kafka, topics.messages);
  const readModels = new MessagesReadModels(db);
  const app = new MessagesApp({ store, publisher, readModels, logger });
  const http: Express = createServiceApp({ logger, routers: [messagesRouter(app)], bodyLimit: '80kb' });
  // Who may send is learnt from the users service's events, never from its database.
  const consumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor('messages.known-users', db.databaseName),
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
      await store.ensureIndexes();
      await ensureTopics(kafka, [topics.users, topics.messages]);
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
