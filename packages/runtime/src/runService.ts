import { Admission, Probes, collectProcessMetrics, createLogger, listen, onShutdownSignal, startTracing, withOperations } from '@chat/http';
import { createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import type { RequestListener } from 'node:http';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config.js';
import type { PlatformDeps } from './platformDeps.js';

export interface RunnableService {
  http: RequestListener;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Process concerns of a service's main.ts: tracing (when configured), connect, start, listen (with
 * /healthz, /readyz and /metrics in front of the API), and on SIGINT/SIGTERM stop taking
 * requests, then stop consumers and producers, then disconnect.
 */
export async function runService(
  name: string,
  config: Readonly<ServiceConfig>,
  create: (deps: { db: Db; kafka: Kafka; logger: Logger } & PlatformDeps) => RunnableService,
): Promise<void> {
  const logger = createLogger(name, config.logLevel);
  collectProcessMetrics();
  // Before anything that makes spans: off (nothing loaded) unless an OTLP endpoint is configured.
  const tracing = await startTracing(name, logger);
  const probes = new Probes();
  const mongo = await connectMongo(config.mongoUrl, config.mongoDb, name);
  const kafka = createKafka(name, config.kafkaBrokers, logger, config.kafkaSecurity);
  const service = create({ db: mongo.db, kafka, logger, probes, topicSettings: config.topicSettings });
  await service.start();
  // Past capacity the service answers a fast 503 instead of queueing until clients time out; the
  // probes and /metrics stand in front of that, so an overloaded process is not restarted for it.
  const server = await listen(withOperations(new Admission(config.admission).wrap(service.http), probes), config.port, config.host);
  logger.info({ port: server.port }, `${name} service listening`);
  onShutdownSignal(
    async () => {
      await server.close();
      await service.stop();
      await mongo.close();
      // Last: the spans of the shutdown's own work are exported too.
      await tracing?.shutdown();
    },
    (message) => logger.info(message),
  );
}
