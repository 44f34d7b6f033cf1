import { Admission, createLogger, listen, onShutdownSignal } from '@chat/http';
import { createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import type { RequestListener } from 'node:http';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config.js';

export interface RunnableService {
  http: RequestListener;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Process concerns of a service's main.ts: connect, start, listen, and on SIGINT/SIGTERM stop taking
 * requests, then stop consumers and producers, then disconnect.
 */
export async function runService(
  name: string,
  config: Readonly<ServiceConfig>,
  create: (deps: { db: Db; kafka: Kafka; logger: Logger; topicPartitions: number }) => RunnableService,
): Promise<void> {
  const logger = createLogger(name, config.logLevel);
  const mongo = await connectMongo(config.mongoUrl, config.mongoDb, name);
  const kafka = createKafka(name, config.kafkaBrokers, logger);
  const service = create({ db: mongo.db, kafka, logger, topicPartitions: config.topicPartitions });
  await service.start();
  // Past capacity the service answers a fast 503 instead of queueing until clients time out.
  const server = await listen(new Admission(config.admission).wrap(service.http), config.port, config.host);
  logger.info({ port: server.port }, `${name} service listening`);
  onShutdownSignal(
    async () => {
      await server.close();
      await service.stop();
      await mongo.close();
    },
    (message) => logger.info(message),
  );
}
