import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createNotificationsService } from './service.js';

const config = loadConfig();
await runService('notifications', config, (deps) => createNotificationsService(config, deps));
