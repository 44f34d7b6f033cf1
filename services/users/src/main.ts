import { createLogger, listen, onShutdownSignal } from '@chat/http';
import { createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import { loadConfig } from './config.js';
import { createUsersService } from './service.js';

const config = loadConfig();
const logger = createLogger('users', config.logLevel);
const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'users');
const kafka = createKafka('users', config.kafkaBrokers, logger);
const service = createUsersService({ db: mongo.db, kafka, logger });
await service.start();
const server = await listen(service.http, config.port, config.host);
logger.info({ port: server.port }, 'users service listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    await mongo.close();
  },
  (message) => logger.info(message),
);
