import { parseKnownEvent, topics } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { consumerGroupFor, ensureTopics, EventConsumer, KafkaEventPublisher, startRelay } from '@chat/kafka';
import { MongoCommitStore } from '@chat/mongo';
import type { Express } from 'express';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { ConversationReadModels } from './adapters/readModels.js';
import { ConversationsApp } from './app/conversations.js';
import { conversationsRouter } from './http/router.js';

export interface ConversationsServiceDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

export interface ConversationsService {
  http: Express;
  readModels: ConversationReadModels;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const CONSUMER_GROUP = 'conversations.read-models';

/** Composition root: every collaborator of the conversations service is wired here and only here. */
export function createConversationsService(deps: ConversationsServiceDeps): ConversationsService {
  const { db, kafka, logger } = deps;
  const store = new MongoCommitStore(db);
  const publisher = new KafkaEventPublisher(kafka, topics.conversations);
  const readModels = new ConversationReadModels(db);
  const app = new ConversationsApp({ store, publisher, readModels, logger });
  const http = createServiceApp({ logger, routers: [conversationsRouter(app)] });

  const consumer = new EventConsumer(kafka, {
    groupId: consumerGroupFor(CONSUMER_GROUP, db.databaseName),
    topics: [topics.users, topics.messages, topics.conversations],
    logger,
    handler: async (envelope: EventEnvelope) => {
      const event = parseKnownEvent(envelope);
      if (event) await readModels.apply(event);
    },
  });
  let relay: ReturnType<typeof startRelay> | null = null;

  return {
    http,
    readModels,
    async start() {
      await Promise.all([store.ensureIndexes(), readModels.ensureIndexes(db)]);
      await ensureTopics(kafka, [topics.users, topics.messages, topics.conversations]);
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
