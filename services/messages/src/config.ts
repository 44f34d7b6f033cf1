import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';

/** The only reader of process.env in the messages service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ServiceConfig> {
  return loadServiceConfig(env, { port: 3103, mongoDb: 'chat_messages' });
}
