import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { OutboundHttp, SecretBox } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { IMPORT_BODY_LIMIT, answeringHotRoutes, createServiceApp } from '@chat/http';
import { EventConsumer, LagReader, consumerGroupFor } from '@chat/kafka';
import { ProjectionCatchUp, createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { DEFAULT_AGENT_LIMITS, runAgUiAgent } from './adapters/agents/agUiClient.js';
import { ModerationReadModels } from './adapters/moderation/moderationReadModels.js';
import { PersonalReadModels } from './adapters/personalMarks/personalReadModels.js';
import { CallUsageClient } from './adapters/callUsageClient.js';
import { MessageIds } from './adapters/messageIds.js';
import { MessagesReadModels } from './adapters/readModels.js';
import { MessageImport } from './app/dataImport/messageImport.js';
import { MessageReview } from './app/moderation/messageReview.js';
import { MessageInteractions } from './app/personalMarks/messageInteractions.js';
import { createMessagesApp } from './app/messages.js';
import { MessagesAsOf } from './app/messagesAsOf.js';
import { AgentCredentials } from './app/agents/agentCredentials.js';
import { ModerationSettingsApp } from './app/moderation/moderationSettings.js';
import { SavedMessages } from './app/personalMarks/savedMessages.js';
import { ThreadSubscriptions } from './app/personalMarks/threadSubscriptions.js';
import { AgentReplies } from './consumers/agents/agentReplies.js';
import { GroupActionMessages } from './consumers/groupActions.js';
import { OwnEvents } from './consumers/ownEvents.js';
import { agentsRouter } from './http/agents/agentRoutes.js';
import { dataImportRouter } from './http/dataImport/importRoutes.js';
import { internalRouter } from './http/internalRoutes.js';
import { moderationRouter } from './http/moderation/moderationRoutes.js';
import { personalRouter } from './http/personalMarks/personalRoutes.js';
import { statsRouter } from './http/usageMetrics/stats.js';
import { messagesRouter } from './http/router.js';
import { sendRoute } from './http/sending.js';
import { isGroupEvent } from './projections/groups.js';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface MessagesServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  /** How long an AG-UI agent has for a whole streamed answer (`AGENT_TIMEOUT_MS`). */
  agentTimeoutMs: number;
  /** How long an agent's stream may go quiet (`AGENT_IDLE_TIMEOUT_MS`). */
  agentIdleMs: number;
  /** Which internal addresses agent URLs may reach (`TENANT_URLS_ALLOW_PRIVATE`). */
  tenantUrls: PrivateAddressPolicy;
  /** The most events one time-travel read may replay (`TIME_TRAVEL_MAX_EVENTS`). */
  maxReplayEvents: number;
  /** The keyring that seals agents' header values (`MESSAGES_SECRETS_KEY`, ADR 0039). */
  secretsKey: string;
  /** The calls service's replicas (`CALLS_URL`): `GET /stats` asks them for the call figures (ADR 0064). */
  callsUrls: readonly string[];
}

/** A request body's limit (KiB): CometChat's 64 KB message and its JSON around it. */
const BODY_LIMIT_KB = 80;

/** The longest an erasure waits for the own-events group (its gathering adds 250 ms), and how often it looks. */
const ERASURE_FENCE_TIMEOUT_MS = 10_000;
const ERASURE_FENCE_POLL_MS = 50;

/** How the own-events consumer batches (see `EventConsumerOptions.gather`). */
const OWN_EVENTS_GATHER = { minBytes: 256 * 1024, maxWaitMs: 250 };

/** Composition root of the messages service. */
export function createMessagesService(deps: MessagesServiceDeps): RunnableService {
  const { db, kafka, logger } = deps;
  // Its own topic is read by one group, gathered, which heals the read models after a crash between
  // append and apply and answers agents (ADR 0084); the projection group reads the other two.
  const ownEventsGroup = consumerGroupFor('messages.agents', db.databaseName);
  const positions = new LagReader(kafka);
  // An erasure waits until that group has applied what is on the topic, so no heal writes back what it erased (ADR 0085).
  const ownTopicApplied = new ProjectionCatchUp({
    positions,
    groupId: ownEventsGroup,
    topics: [topics.messages],
    timeoutMs: ERASURE_FENCE_TIMEOUT_MS,
    pollMs: ERASURE_FENCE_POLL_MS,
    onGiveUp: (reason, detail) => logger.warn({ reason, detail }, 'an erasure waited for the own-events group in vain; it is retried'),
  });
  // Sends' facts stay in memory while the pipeline's watch is known to keep up (ADR 0020).
  const readModels = new MessagesReadModels(db, {
    watchCurrentAsOf: () => pipeline.watchCurrentAsOf(),
    untilOwnTopicApplied: () => ownTopicApplied.caughtUp(),
  });
  const moderation = new ModerationReadModels(db, logger, { watchCurrentAsOf: () => pipeline.watchCurrentAsOf() });
  const personal = new PersonalReadModels(db);
  const ownReadModels = {
    apply: async (events: readonly KnownEvent[]) => {
      await readModels.apply(events);
      await moderation.apply(events);
      await personal.apply(events);
    },
  };
  const watchedTypes = new Set([...MessagesReadModels.factEventTypes, ...ModerationReadModels.settingsEventTypes]);
  let groupActions: GroupActionMessages | null = null;
  // Who may send is learnt from the users and conversations services' events, never from their
  // databases.
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.messages,
    consumes: [topics.users, topics.conversations],
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
        await ownReadModels.apply(run);
        run = [];
        await ownReadModels.apply([event]);
        await groupActions?.handle(event);
      }
      await ownReadModels.apply(run);
    },
    ownReadModels,
    // Every replica forgets the facts an event changes the moment it is on Kafka (sends read them from
    // memory), and its moderation settings the moment a rule or list changes (ADR 0025).
    watch: {
      topics: [topics.users, topics.conversations, topics.messages],
      onEvents: (events) => {
        readModels.observeFacts(events);
        moderation.observe(events);
      },
      // Sends and the other per-message events change neither: they are not decoded (ADR 0057).
      select: (record) => record.type === undefined || watchedTypes.has(record.type),
      // What the own-events group has applied is in the store; the watch starts its own topic there.
      startFromGroupOf: { [topics.messages]: ownEventsGroup },
    },
  });
  const app = createMessagesApp({ runner: pipeline.runner, readModels, ids: new MessageIds(db), moderation });
  groupActions = new GroupActionMessages(app, readModels);
  const secrets = new SecretBox(deps.secretsKey);
  logger.info({ keyIds: secrets.keyIds }, 'agent credentials keyring (the first seals)');
  const credentials = new AgentCredentials(secrets);
  const settings = new ModerationSettingsApp({ runner: pipeline.runner, readModels, moderation, credentials });
  // Time-travel lists replay a conversation's stream from this service's own commit store (ADR 0033).
  const asOf = new MessagesAsOf({ events: pipeline.store, readModels, maxEvents: deps.maxReplayEvents });
  const review = new MessageReview({ messages: app, readModels, moderation });
  // A user's own marks on messages: each on a stream of its own, never the conversation's (ADR 0053).
  const personalApps = {
    saved: new SavedMessages({ runner: pipeline.runner, messages: app, readModels, personal }),
    interactions: new MessageInteractions({ runner: pipeline.runner, messages: app, personal }),
    threads: new ThreadSubscriptions({ runner: pipeline.runner, messages: app, readModels, personal }),
  };
  // Agent replies outside the projection group (ADR 0026, 0084): a slow agent never holds up projections.
  // Agents are called through the tenant URL guard (ADR 0038), within a time and size budget per run.
  const agentHttp = new OutboundHttp({ policy: deps.tenantUrls, timeoutMs: deps.agentTimeoutMs, maxSocketsPerHost: 16 });
  const agentLimits = { ...DEFAULT_AGENT_LIMITS, idleMs: deps.agentIdleMs };
  const agentReplies = new AgentReplies({
    messages: app.sending,
    readModels,
    moderation,
    credentials,
    callAgent: (call) => runAgUiAgent(agentHttp, call, agentLimits),
    timeoutMs: deps.agentTimeoutMs,
    logger,
  });
  // The group keeps the agents' name (and so its committed offsets): it was their consumer first.
  const ownEvents = new OwnEvents(ownReadModels, agentReplies);
  const agentConsumer = new EventConsumer(kafka, {
    groupId: ownEventsGroup,
    topics: [topics.messages],
    logger,
    handler: (events) => ownEvents.handle(events),
    // An agent answers in seconds and a heal is needed only after a crash, so a quarter of a second of
    // gathering costs neither anything, and this group, which reads every message, fetches and commits
    // a few times a second instead of per produce.
    gather: OWN_EVENTS_GATHER,
  });

  return {
    // A client's send is answered before express (ADR 0071); every other request goes through it.
    http: answeringHotRoutes([sendRoute(app, BODY_LIMIT_KB * 1024)], createServiceApp({
      logger,
      routers: [
        // Before the message lists: it answers `GET /messages?saved=true` and passes every other list on.
        personalRouter(personalApps.saved, personalApps.interactions, personalApps.threads),
        messagesRouter(app, asOf),
        dataImportRouter(new MessageImport(app.sending, readModels)),
        moderationRouter(settings, review),
        agentsRouter(settings, deps.tenantUrls),
        statsRouter(readModels, new CallUsageClient(deps.callsUrls)),
        internalRouter(pipeline.store),
      ],
      bodyLimit: `${BODY_LIMIT_KB}kb`,
      bodyLimits: { '/v3/data_import': IMPORT_BODY_LIMIT, '/v3/moderation/keywords': '1mb' },
    }), logger),
    start: async () => {
      await readModels.ensureIndexes();
      await moderation.ensureIndexes();
      await personal.ensureIndexes();
      await pipeline.start();
      await agentConsumer.start();
    },
    stop: async () => {
      await agentConsumer.stop();
      await pipeline.stop();
      await positions.close();
      agentHttp.close();
    },
    // Every send fans out to the other services' consumers: past what they carry, sends are refused.
    backlog: { topics: [topics.messages], operations: ['send-message', 'send-thread-message', 'send-bot-message'] },
  };
}
