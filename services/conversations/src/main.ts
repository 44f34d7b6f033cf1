import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createConversationsService } from './service.js';

await runService('conversations', loadConfig(), createConversationsService);
