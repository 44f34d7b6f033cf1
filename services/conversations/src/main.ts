import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createConversationsService } from './service.js';

const config = loadConfig();
await runService('conversations', config, (deps) =>
  createConversationsService({ ...deps, messagesUrls: config.messagesUrls, maxReplayEvents: config.maxReplayEvents }),
);
