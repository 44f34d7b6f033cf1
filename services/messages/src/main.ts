import { runService } from '@chat/runtime';
import { loadConfig } from './config.js';
import { createMessagesService } from './service.js';

const config = loadConfig();
await runService('messages', config, (deps) =>
  createMessagesService({ ...deps, agentTimeoutMs: config.agentTimeoutMs, agentIdleMs: config.agentIdleMs, tenantUrls: config.tenantUrls, maxReplayEvents: config.maxReplayEvents, secretsKey: config.secretsKey, callsUrls: config.callsUrls }),
);
