import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';

export type CallsConfig = ServiceConfig;

/** The only reader of process.env in the calls service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<CallsConfig> {
  return loadServiceConfig(env, { port: 3107, mongoDb: 'chat_calls' });
}
