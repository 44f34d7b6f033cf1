import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createMessagesService } from './service.js';

const config = loadConfig();
await runService('messages', config, (deps) => createMessagesService({ ...deps, agentTimeoutMs: config.agentTimeoutMs, maxReplayEvents: config.maxReplayEvents, secretsKey: config.secretsKey }));
