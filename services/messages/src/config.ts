import { privateAddressPolicy, secretKeysSetting } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { parseEnvironment } from '@chat/contracts';
import { DEFAULT_MAX_REPLAY_EVENTS } from '@chat/eventsourcing';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';

export interface MessagesConfig extends ServiceConfig {
  /** How long a BYO agent has to stream a whole answer before the conversation is told it failed. */
  agentTimeoutMs: number;
  /** The longest an agent's stream may go quiet before the run is given up (`AGENT_IDLE_TIMEOUT_MS`). */
  agentIdleMs: number;
  /** Which internal addresses agent URLs may reach (`TENANT_URLS_ALLOW_PRIVATE`, ADR 0038). */
  tenantUrls: PrivateAddressPolicy;
  /** The most events one time-travel read (`asOf`) may replay before it is refused (ADR 0033). */
  maxReplayEvents: number;
  /** Keyring (`<hex>[,<older hex>…]`) sealing BYO agents' header values (ADR 0039). */
  secretsKey: string;
  /** The calls service's replica origins (`CALLS_URL`), asked for `GET /stats`'s call figures (ADR 0064). */
  callsUrls: string[];
}

/** The only reader of process.env in the messages service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<MessagesConfig> {
  const schema = z.object({
    AGENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    AGENT_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    TENANT_URLS_ALLOW_PRIVATE: z.string().default('false'),
    TIME_TRAVEL_MAX_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_REPLAY_EVENTS),
    MESSAGES_SECRETS_KEY: secretKeysSetting,
    CALLS_URL: z.string().min(1).default('http://127.0.0.1:3107'),
  });
  const { AGENT_TIMEOUT_MS, AGENT_IDLE_TIMEOUT_MS, TENANT_URLS_ALLOW_PRIVATE, TIME_TRAVEL_MAX_EVENTS, MESSAGES_SECRETS_KEY, CALLS_URL } = parseEnvironment('messages', schema, env);
  return Object.freeze({
    ...loadServiceConfig(env, { port: 3103, mongoDb: 'chat_messages' }),
    agentTimeoutMs: AGENT_TIMEOUT_MS,
    agentIdleMs: AGENT_IDLE_TIMEOUT_MS,
    tenantUrls: privateAddressPolicy(TENANT_URLS_ALLOW_PRIVATE),
    maxReplayEvents: TIME_TRAVEL_MAX_EVENTS,
    secretsKey: MESSAGES_SECRETS_KEY,
    callsUrls: CALLS_URL.split(',').map((url) => url.trim().replace(/\/$/, '')).filter(Boolean),
  });
}
