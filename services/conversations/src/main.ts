import { createLogger, listen, onShutdownSignal } from '@chat/http';
import { createKafka } from '@chat/kafka';
import { connectMongo } from '@chat/mongo';
import { loadConfig } from './config.js';
import { createConversationsService } from './service.js';

const config = loadConfig();
const logger = createLogger('conversations', config.logLevel);
const mongo = await connectMongo(config.mongoUrl, config.mongoDb, 'conversations');
const kafka = createKafka('conversations', config.kafkaBrokers, logger);
const service = createConversationsService({ db: mongo.db, kafka, logger });
await service.start();
const server = await listen(service.http, config.port, config.host);
logger.info({ port: server.port }, 'conversations service listening');

onShutdownSignal(
  async () => {
    await server.close();
    await service.stop();
    await mongo.close();
  },
  (message) => logger.info(message),
);
