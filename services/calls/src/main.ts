import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createCallsService } from './service.js';

const config = loadConfig();
await runService('calls', config, (deps) => createCallsService(deps));
