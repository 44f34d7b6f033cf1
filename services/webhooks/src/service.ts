import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import { Dispatcher, OutboundHttp, SecretBox } from '@chat/delivery';
import { createServiceApp } from '@chat/http';
import { skippingGather } from '@chat/kafka';
import { MongoDocumentStore } from '@chat/mongo';
import { createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { DELIVERIES_COLLECTION, DeliveryLog } from './adapters/deliveryLog.js';
import { WebhookReadModels } from './adapters/readModels.js';
import { Deliveries } from './app/deliveries.js';
import { WebhookDirectory, webhookAppLoader } from './app/directory.js';
import { Redelivery } from './app/redelivery.js';
import { sourceSelector } from './app/sourceSelector.js';
import type { WebhooksConfig } from './config.js';
import { deliveriesRouter } from './http/routes.js';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface WebhooksServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
}

/**
 * Composition root of the delivery process: its own consumer group on the chat topics (and
 * management's, for the webhooks themselves), its delivery log, and the dispatcher that sends them.
 * Its topic carries only the 410 notices management disables webhooks from (ADR 0044).
 */
export function createWebhooksService(config: Readonly<WebhooksConfig>, deps: WebhooksServiceDeps): RunnableService & { dispatcher: Dispatcher } {
  const { db, logger } = deps;
  const startedAt = Date.now();
  const readModels = new WebhookReadModels(db);
  const log = new DeliveryLog(new MongoDocumentStore(db, DELIVERIES_COLLECTION));
  const sender = new OutboundHttp({
    timeoutMs: config.requestTimeoutMs,
    policy: config.tenantUrls,
    maxSocketsPerHost: config.concurrencyPerEndpoint,
  });
  const dispatcher = new Dispatcher({
    concurrencyPerEndpoint: config.concurrencyPerEndpoint,
    attempt: (delivery) => deliveries.attempt(delivery),
    onError: (error, delivery) => logger.error({ err: error, deliveryId: delivery.deliveryId }, 'delivery attempt could not be recorded; retrying'),
  });

  // The chat topics whose events raise triggers.
  const sourceTopics = [topics.messages, topics.conversations, topics.users];
  // An app without a webhook on an event's trigger costs this process no decoding of the event. While
  // busy, fuller fetches: a few tens of ms against a 500 ms delivery goal (ADR 0083); while no record has
  // been kept for a spell (no app with a webhook on a trigger sends), half a second (ADR 0095).
  const selection = skippingGather(sourceSelector(sourceTopics, { listenedTriggers: (appId, at) => directory.listenedTriggers(appId, at) }));
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.webhooks,
    consumes: [topics.management, ...sourceTopics],
    consumerPurpose: 'webhooks.deliveries',
    select: selection.select,
    gather: selection.gather,
    project: async (events) => {
      await readModels.apply(events);
      configuration.applied(events);
      const sources = events.filter((e: KnownEvent) => !configuration.isConfiguration(e));
      // Events from before this process started may have been delivered by its previous run: stored
      // first, sent only if new. They are older than the rest, so each lane keeps its order.
      const replayed = sources.filter((e) => Date.parse(e.occurredAt) < startedAt);
      for (const delivery of await deliveries.queue(replayed)) dispatcher.enqueue(delivery);
      // New events go out at once; a first attempt answered 2xx within the wait is stored delivered in one
      // write. Either way every delivery is stored before the offsets move on, so a crash loses none.
      const planned = await deliveries.plan(sources.filter((e) => Date.parse(e.occurredAt) >= startedAt));
      for (const delivery of planned) dispatcher.enqueue(delivery);
      await deliveries.secure(planned);
    },
    ownReadModels: readModels,
    // Every replica sees every configuration event (the projection shares them out among replicas).
    watch: { topics: [topics.management], onEvents: (events) => configuration.observe(events) },
    fenceTimeoutMs: config.configFenceTimeoutMs,
  });
  const secrets = new SecretBox(config.webhookSecretsKey);
  logger.info({ keyIds: secrets.keyIds }, 'webhook secrets keyring (the first seals)');
  const configuration = pipeline.configurationDirectory({
    load: webhookAppLoader(readModels, secrets),
    documents: readModels.configurationDocuments(),
  });
  const directory = new WebhookDirectory(configuration);
  const deliveries = new Deliveries({
    log,
    runner: pipeline.runner,
    directory,
    sender,
    retry: config.retry,
    region: config.region,
    logger,
    firstAttemptWaitMs: config.firstAttemptWaitMs,
  });
  const redelivery = new Redelivery({ readModels, log, deliveries, enqueue: (d) => dispatcher.enqueue(d) });

  return {
    dispatcher,
    http: createServiceApp({ logger, routers: [deliveriesRouter(readModels, redelivery)], bodyLimit: '4kb' }),
    async start() {
      await readModels.ensureIndexes();
      // What a previous run left pending goes first, ahead of anything new in its lane.
      for (const pending of await readModels.pendingDeliveries()) dispatcher.enqueue(deliveries.resume(pending));
      await pipeline.start();
      dispatcher.start();
    },
    async stop() {
      await dispatcher.stop();
      await deliveries.drain();
      await pipeline.stop();
      sender.close();
    },
  };
}
