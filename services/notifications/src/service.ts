import { notificationAppEventTypes, notificationRecipientEventTypes, topics, userLifecycleEventTypes } from '@chat/contracts';
import { Dispatcher, OutboundHttp, SecretBox } from '@chat/delivery';
import { UsersLookups, createServiceApp } from '@chat/http';
import { skippingGather } from '@chat/kafka';
import { ConfigurationDirectory, createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { Providers } from './adapters/providers/index.js';
import { NotificationReadModels, projectedEventTypes } from './adapters/readModels.js';
import { ConfigCommands } from './app/configCommands.js';
import { Deliveries } from './app/deliveries.js';
import { ConfiguredApps } from './app/configuredApps.js';
import { appConfigLoader } from './app/directory.js';
import { Notifier } from './app/notifier.js';
import { RecipientCommands } from './app/recipientCommands.js';
import { SESSION_END_TYPE, SessionEnds } from './app/sessionEnds.js';
import type { NotificationsConfig } from './config.js';
import { logRouter } from './http/logRoutes.js';
import { providerRouter } from './http/providerRoutes.js';
import { recipientRouter } from './http/recipientRoutes.js';
import { settingsRouter } from './http/settingsRoutes.js';
import { tokenRouter } from './http/tokenRoutes.js';

/** What the watch decodes: configuration, and every change of a recipient (ADR 0059). */
const watchedTypes: ReadonlySet<string> = new Set([...notificationAppEventTypes, ...notificationRecipientEventTypes, ...userLifecycleEventTypes]);

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface NotificationsServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/**
 * Composition root of the notifications service: its own event store and topic for settings,
 * providers, recipients and notifications; one consumer group on the users, conversations and
 * messages topics (and its own) that keeps the read models and decides, per message and recipient,
 * what to send; the dispatcher that calls the providers.
 */
export function createNotificationsService(config: Readonly<NotificationsConfig>, deps: NotificationsServiceDeps): RunnableService & { dispatcher: Dispatcher } {
  const { db, logger } = deps;
  const readModels = new NotificationReadModels(db);
  const secrets = new SecretBox(config.secretsKey);
  // Auth tokens are asked of the users service, not copied from its events (ADR 0144); only their
  // revocations are read, to end the push tokens of those sessions (ADR 0151).
  const users = new UsersLookups(config.usersUrls);
  logger.info({ keyIds: secrets.keyIds }, 'provider secrets keyring (the first seals)');
  const customSender = new OutboundHttp({ timeoutMs: config.requestTimeoutMs, policy: config.tenantUrls, maxSocketsPerHost: config.concurrencyPerProvider });
  const providers = new Providers({ endpoints: config.endpoints, timeoutMs: config.requestTimeoutMs, customSender });
  const dispatcher = new Dispatcher({
    concurrencyPerEndpoint: config.concurrencyPerProvider,
    attempt: (queued) => deliveries.attempt(queued),
    onError: (error, queued) => logger.error({ err: error, notificationId: queued.deliveryId }, 'a provider call could not be recorded; retrying'),
  });

  // A message of an app with no provider, or an event no read model here applies, is not even decoded.
  // While busy, fuller fetches: a few tens of ms against a 500 ms push goal (ADR 0083); while no record
  // has been kept for a spell (no app with a provider sends), half a second (ADR 0095).
  const selection = skippingGather((records) => configuredApps.select(records));
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.notifications,
    consumes: [topics.users, topics.conversations, topics.messages, topics.notifications],
    consumerPurpose: 'notifications',
    select: selection.select,
    gather: selection.gather,
    project: async (events, run) => {
      await readModels.apply(events);
      directory.applied(events);
      recipients.applied(events);
      await sessionEnds.apply(events);
      // Decisions are stored before the offsets move on, so a crash here loses none.
      await notifier.queue(events, run);
    },
    ownReadModels: readModels,
    // Every replica sees every configuration and recipient event (the projection shares them out among replicas).
    watch: {
      topics: [topics.notifications, topics.users],
      onEvents: (events) => {
        directory.observe(events);
        recipients.observe(events);
        configuredApps.observe(events);
      },
      // Only configuration and recipient events matter to the watch; nothing else is decoded.
      select: (record) => record.type === undefined || watchedTypes.has(record.type),
    },
    fenceTimeoutMs: config.configFenceTimeoutMs,
  });
  const configuredApps = new ConfiguredApps({
    listConfigured: () => readModels.configuredAppIds(),
    handledTypes: new Set([...projectedEventTypes, SESSION_END_TYPE]),
    fence: pipeline.fence!,
  });
  const directory = pipeline.configurationDirectory({ load: appConfigLoader(readModels, secrets), documents: readModels.configurationDocuments() });
  // Per app, a generation of its recipients (ADR 0059): kept recipients are read again only after
  // a change the watch saw is in the read model, never per run. Its own instance: the pipeline's
  // directory metrics name the configuration directory.
  const recipients = new ConfigurationDirectory<object>({
    load: () => Promise.resolve({}),
    documents: readModels.recipientDocuments(),
    fence: pipeline.fence!,
    appliedTimeoutMs: config.configFenceTimeoutMs,
    onAppliedTimeout: (appId, waitedFor) => logger.warn({ appId, waitedFor }, 'recipients read before the read model showed a change the watch saw; going on with them'),
  });
  const notifier = new Notifier({
    readModels,
    directory,
    recipients,
    region: config.region,
    defaultTimezone: config.defaultTimezone,
    take: (skipped, sends, run) => deliveries.take(skipped, sends, run),
  });
  const deliveries = new Deliveries({
    runner: pipeline.runner,
    decidedBefore: (messages, ids) => readModels.decidedBefore(messages, ids),
    recordRun: (records, pending, decidedAt) => readModels.recordRun(records, pending, decidedAt),
    recordAttempts: (attempts) => readModels.recordAttempts(attempts),
    dispatch: (queued) => dispatcher.enqueue(queued),
    directory,
    providers,
    retry: config.retry,
    firstAttemptWaitMs: config.firstAttemptWaitMs,
  });
  const configCommands = new ConfigCommands(pipeline.runner, directory);
  const recipientCommands = new RecipientCommands(pipeline.runner, readModels);
  const sessionEnds = new SessionEnds(pipeline.runner, readModels);

  return {
    dispatcher,
    http: createServiceApp({
      logger,
      routers: [
        settingsRouter(configCommands, directory),
        providerRouter({
          commands: configCommands,
          readModels,
          secrets,
          tenantUrls: config.tenantUrls,
          forgetCredentials: (providerId) => providers.forget(providerId),
        }),
        recipientRouter(recipientCommands, directory, config.defaultTimezone),
        tokenRouter(recipientCommands, (appId, tokenHash) => users.authTokenOwner(appId, tokenHash), directory),
        logRouter(readModels),
      ],
      bodyLimit: '64kb',
    }),
    async start() {
      await readModels.ensureIndexes();
      // What a previous run left pending goes first.
      for (const pending of await readModels.pendingNotifications()) deliveries.resume(pending);
      await pipeline.start();
      dispatcher.start();
    },
    async stop() {
      await dispatcher.stop();
      await pipeline.stop();
      customSender.close();
      providers.close();
      await users.close();
    },
  };
}
