import { connectMongo } from '@chat/mongo';
import { createKafka } from '@chat/kafka';
import { Probes, collectProcessMetrics, createLogger, listen, onShutdownSignal, startTracing, withOperations } from '@chat/http';
import { Redis } from 'ioredis';
import { loadConfig } from './config.js';
import { createManagementService } from './service.js';

const config = loadConfig();
const logger = createLogger('management', config.logLevel);
// Off (nothing loaded) unless an OTLP endpoint is configured (ADR 0032).
const tracing = await startTracing('management', logger);

const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'management');
const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
await redis.connect();
const kafka = createKafka('management', config.kafkaBrokers, logger, config.kafkaSecurity);

collectProcessMetrics();
const probes = new Probes();
// Key changes reach the gateways through Redis: without it a revoked key would live on in their caches.
probes.add('redis', () => redis.status === 'ready');
const service = createManagementService(config, { db: mongo.db, kafka, redis, logger, probes, topicSettings: config.topicSettings });
await service.start();
const server = await listen(withOperations(service.app, probes), config.port, config.host);
logger.info({ port: server.port }, 'management listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    await redis.quit();
    await mongo.close();
    await tracing?.shutdown();
  },
  (message) => logger.info(message),
);
