import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createRealtimeService } from './service.js';

const config = loadConfig();
await runService('realtime', config, (deps) => createRealtimeService(deps, config));
