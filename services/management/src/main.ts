import { connectMongo } from '@chat/mongo';
import { createKafka } from '@chat/kafka';
import { Probes, collectProcessMetrics, createLogger, listen, onShutdownSignal, startTracing, withOperations } from '@chat/http';
import { Redis } from 'ioredis';
import { loadConfig } from './config.js';
import { watchRedis } from './redisHealth.js';
import { createManagementService } from './service.js';

const config = loadConfig();
const logger = createLogger('management', config.logLevel);
// Off (nothing loaded) unless an OTLP endpoint is configured (ADR 0032).
const tracing = await startTracing('management', logger);

const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'management');
// Connects, and reconnects, in the background: management starts and serves key look-ups while Redis
// is away (ADR 0040); invalidations wait for it (the projection retries them as an outage).
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
redis.on('error', (error: unknown) => logger.warn({ err: error }, 'redis error'));
const kafka = createKafka('management', config.kafkaBrokers, logger, config.kafkaSecurity);

collectProcessMetrics();
const probes = new Probes();
const stopRedisGauge = watchRedis(probes, redis);
const service = createManagementService(config, { db: mongo.db, kafka, redis, logger, probes, topicSettings: config.topicSettings });
await service.start();
const server = await listen(withOperations(service.app, probes), config.port, config.host);
logger.info({ port: server.port }, 'management listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    stopRedisGauge();
    await redis.quit();
    await mongo.close();
    await tracing?.shutdown();
  },
  (message) => logger.info(message),
);
