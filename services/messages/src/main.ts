import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createMessagesService } from './service.js';

await runService('messages', loadConfig(), createMessagesService);
