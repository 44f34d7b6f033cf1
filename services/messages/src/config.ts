import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';

export interface MessagesConfig extends ServiceConfig {
  /** How long a BYO agent has to stream a whole answer before the conversation is told it failed. */
  agentTimeoutMs: number;
}

/** The only reader of process.env in the messages service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<MessagesConfig> {
  const { AGENT_TIMEOUT_MS } = z.object({ AGENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000) }).parse(env);
  return Object.freeze({ ...loadServiceConfig(env, { port: 3103, mongoDb: 'chat_messages' }), agentTimeoutMs: AGENT_TIMEOUT_MS });
}
