import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { IMPORT_BODY_LIMIT, createServiceApp } from '@chat/http';
import { createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { MessagesReadModels } from './adapters/readModels.js';
import { MessageImport } from './app/messageImport.js';
import { MessagesApp } from './app/messages.js';
import { GroupActionMessages } from './consumers/groupActions.js';
import { callsRouter } from './http/calls.js';
import { statsRouter } from './http/stats.js';
import { messagesRouter } from './http/router.js';
import { isGroupEvent } from './projections/groups.js';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface MessagesServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/** Composition root of the messages service. */
export function createMessagesService(deps: MessagesServiceDeps): RunnableService {
  const { db, logger } = deps;
  const readModels = new MessagesReadModels(db);
  let groupActions: GroupActionMessages | null = null;
  // Who may send is learnt from the users and conversations services' events, never from their
  // databases; its own topic heals the messages read model after a crash between append and apply.
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.messages,
    consumes: [topics.users, topics.conversations, topics.messages],
    consumerPurpose: 'messages.projections',
    project: async (events) => {
      // An action message snapshots its group as of its event, so a group event is applied and acted
      // on alone; the events between group events are applied in runs.
      let run: KnownEvent[] = [];
      for (const event of events) {
        if (!isGroupEvent(event)) {
          run.push(event);
          continue;
        }
        await readModels.apply(run);
        run = [];
        await readModels.apply([event]);
        await groupActions?.handle(event);
      }
      await readModels.apply(run);
    },
    ownReadModels: readModels,
    // Every replica forgets the facts an event changes the moment it is on Kafka (sends read them from memory).
    watch: { topics: [topics.users, topics.conversations], onEvents: (events) => readModels.observeFacts(events) },
  });
  const app = new MessagesApp({ runner: pipeline.runner, readModels });
  groupActions = new GroupActionMessages(app, readModels);

  return {
    http: createServiceApp({
      logger,
      routers: [messagesRouter(app, new MessageImport(app, readModels)), callsRouter(readModels), statsRouter(readModels)],
      bodyLimit: '80kb',
      bodyLimits: { '/v3/data_import': IMPORT_BODY_LIMIT },
    }),
    start: async () => {
      await readModels.ensureIndexes();
      await pipeline.start();
    },
    stop: () => pipeline.stop(),
  };
}
