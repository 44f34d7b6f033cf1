import { connectMongo } from '@chat/mongo';
import { createKafka } from '@chat/kafka';
import { createLogger, listen, onShutdownSignal } from '@chat/http';
import { Redis } from 'ioredis';
import { loadConfig } from './config.js';
import { createManagementService } from './service.js';

const config = loadConfig();
const logger = createLogger('management', config.logLevel);

const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'management');
const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
await redis.connect();
const kafka = createKafka('management', config.kafkaBrokers, logger);

const service = createManagementService(config, { db: mongo.db, kafka, redis, logger });
await service.start();
const server = await listen(service.app, config.port, config.host);
logger.info({ port: server.port }, 'management listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    await redis.quit();
    await mongo.close();
  },
  (message) => logger.info(message),
);
