import { createLogger, listen, onShutdownSignal } from '@chat/http';
import { createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import { loadConfig } from './config.js';
import { createMessagesService } from './service.js';

const config = loadConfig();
const logger = createLogger('messages', config.logLevel);
const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'messages');
const kafka = createKafka('messages', config.kafkaBrokers, logger);
const service = createMessagesService({ db: mongo.db, kafka, logger });
await service.start();
const server = await listen(service.http, config.port, config.host);
logger.info({ port: server.port }, 'messages service listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    await mongo.close();
  },
  (message) => logger.info(message),
);
