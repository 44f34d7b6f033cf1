import { topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { createEventPipeline } from '@chat/runtime';
import type { RunnableService } from '@chat/runtime';
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
export function createMessagesService(deps: MessagesServiceDeps): RunnableService {
  const { db, logger } = deps;
  const readModels = new MessagesReadModels(db);
  // Who may send is learnt from the users service's events, never from its database.
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.messages,
    consumes: [topics.users],
    consumerPurpose: 'messages.known-users',
    project: (event) => readModels.apply(event),
  });
  const app = new MessagesApp({ store: pipeline.store, publisher: pipeline.publisher, readModels, logger });

  return {
    http: createServiceApp({ logger, routers: [messagesRouter(app)], bodyLimit: '80kb' }),
    start: () => pipeline.start(),
    stop: () => pipeline.stop(),
  };
}
