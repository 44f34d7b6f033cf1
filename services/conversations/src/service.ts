import { topics } from '@chat/contracts';
import { IMPORT_BODY_LIMIT, createServiceApp } from '@chat/http';
import { allOf } from '@chat/mongo';
import { createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { ConversationReadModels } from './adapters/readModels.js';
import { GroupReadModels } from './adapters/groups/groupsReadModels.js';
import { ConversationAccess } from './app/conversations/conversationAccess.js';
import { ConversationsApp } from './app/conversations/conversations.js';
import { MarksApp } from './app/conversations/marks.js';
import { PinsApp } from './app/pins/pins.js';
import { ConversationAsOf } from './app/conversations/conversationAsOf.js';
import { MessageStreamsClient } from './adapters/conversations/messageStreams.js';
import { importedReceiptsOf } from './domain/importedReceipts.js';
import { GroupsApp } from './app/groups/groups.js';
import { GroupStreams } from './app/groups/groupStreams.js';
import { MembersApp } from './app/groups/members.js';
import { groupImportRouter, groupsRouter } from './http/groups/groups.js';
import { GroupImport } from './app/groups/groupImport.js';
import { conversationsRouter } from './http/conversations/router.js';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface ConversationsServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  /** The messages service's replicas (`MESSAGES_URL`): time-travel reads fold its conversation streams. */
  messagesUrls: readonly string[];
  /** The most events one time-travel read may replay (`TIME_TRAVEL_MAX_EVENTS`). */
  maxReplayEvents: number;
}

export const CONSUMER_PURPOSE = 'conversations.read-models';

/** Composition root: every collaborator of the conversations service is wired here and only here. */
export function createConversationsService(deps: ConversationsServiceDeps): RunnableService {
  const { db, logger } = deps;
  const conversationReadModels = new ConversationReadModels(db);
  const groupReadModels = new GroupReadModels(db);
  // Every event reaches both from the consumer and, for this service's own commands, before the answer.
  const readModels = allOf(conversationReadModels, groupReadModels);
  let marks: MarksApp | null = null;
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.conversations,
    consumes: [topics.users, topics.messages, topics.conversations],
    consumerPurpose: CONSUMER_PURPOSE,
    project: async (events) => {
      await readModels.apply(events);
      // After the messages are in the timelines: imported history's receipts become the receivers' marks.
      const receipts = importedReceiptsOf(events);
      if (receipts.length > 0) await marks?.applyImportedReceipts(receipts);
    },
    ownReadModels: readModels,
  });
  // Time-travel reads fold this service's own streams and the conversation's message stream, which the
  // messages service owns and answers page by page (ADR 0033).
  const asOf = new ConversationAsOf({ local: pipeline.store, messages: new MessageStreamsClient(deps.messagesUrls), maxEvents: deps.maxReplayEvents });
  const conversationsDeps = { runner: pipeline.runner, readModels: conversationReadModels, asOf };
  const access = new ConversationAccess(conversationsDeps);
  marks = new MarksApp(conversationsDeps, access);
  const groupsDeps = { runner: pipeline.runner, readModels: groupReadModels, users: conversationReadModels };
  const groupStreams = new GroupStreams(groupsDeps);

  return {
    http: createServiceApp({
      logger,
      routers: [
        conversationsRouter(new ConversationsApp(conversationsDeps, access), marks, new PinsApp(conversationsDeps, access)),
        groupsRouter(new GroupsApp(groupsDeps, groupStreams), new MembersApp(groupsDeps, groupStreams)),
        groupImportRouter(new GroupImport(groupStreams, groupsDeps)),
      ],
      bodyLimits: { '/v3/data_import': IMPORT_BODY_LIMIT },
    }),
    async start() {
      await conversationReadModels.ensureIndexes();
      await groupReadModels.ensureIndexes();
      await pipeline.start();
    },
    stop: () => pipeline.stop(),
  };
}
