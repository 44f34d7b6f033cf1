import { topics } from '@chat/contracts';
import { createServiceApp } from '@chat/http';
import { createEventPipeline } from '@chat/runtime';
import type { RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { ConversationReadModels } from './adapters/readModels.js';
import { GroupReadModels } from './adapters/groupsReadModels.js';
import { ConversationsApp } from './app/conversations.js';
import { GroupsApp } from './app/groups.js';
import { groupsRouter } from './http/groups.js';
import { conversationsRouter } from './http/router.js';

export interface ConversationsServiceDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

export const CONSUMER_PURPOSE = 'conversations.read-models';

/** Composition root: every collaborator of the conversations service is wired here and only here. */
export function createConversationsService(deps: ConversationsServiceDeps): RunnableService {
  const { db, logger } = deps;
  const readModels = new ConversationReadModels(db);
  const groupReadModels = new GroupReadModels(db);
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.conversations,
    consumes: [topics.users, topics.messages, topics.conversations],
    consumerPurpose: CONSUMER_PURPOSE,
    project: async (events) => {
      // The conversation read model still takes one event at a time (it moves onto the runtime on its own branch).
      for (const event of events) await readModels.apply(event);
      await groupReadModels.apply(events);
    },
    ownReadModels: {
      apply: async (events) => {
        for (const event of events) await readModels.apply(event);
        await groupReadModels.apply(events);
      },
    },
  });
  const app = new ConversationsApp({ runner: pipeline.runner, readModels });
  const groups = new GroupsApp({ runner: pipeline.runner, readModels: groupReadModels, users: readModels });

  return {
    http: createServiceApp({ logger, routers: [conversationsRouter(app), groupsRouter(groups)] }),
    async start() {
      await readModels.ensureIndexes(db);
      await groupReadModels.ensureIndexes();
      await pipeline.start();
    },
    stop: () => pipeline.stop(),
  };
}
