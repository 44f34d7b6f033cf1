import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createUsersService } from './service.js';

await runService('users', loadConfig(), createUsersService);
