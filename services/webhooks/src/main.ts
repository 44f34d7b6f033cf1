import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createWebhooksService } from './service.js';

const config = loadConfig();
await runService('webhooks', config, (deps) => createWebhooksService(config, deps));
