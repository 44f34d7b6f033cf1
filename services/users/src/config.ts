import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';

/** The only reader of process.env in the users service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ServiceConfig> {
  return loadServiceConfig(env, { port: 3101, mongoDb: 'chat_users' });
}
