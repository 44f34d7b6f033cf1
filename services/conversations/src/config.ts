import { DEFAULT_MAX_REPLAY_EVENTS } from '@chat/eventsourcing';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';

export interface ConversationsConfig extends ServiceConfig {
  /** The messages service's replicas, asked for a conversation's message stream by time-travel reads (ADR 0033). */
  messagesUrls: string[];
  /** The most events one time-travel read (`asOf`) may replay before it is refused. */
  maxReplayEvents: number;
}

/** The only reader of process.env in the conversations service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ConversationsConfig> {
  const { MESSAGES_URL, TIME_TRAVEL_MAX_EVENTS } = z
    .object({
      MESSAGES_URL: z.string().min(1).default('http://127.0.0.1:3103'),
      TIME_TRAVEL_MAX_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_REPLAY_EVENTS),
    })
    .parse(env);
  return Object.freeze({
    ...loadServiceConfig(env, { port: 3102, mongoDb: 'chat_conversations' }),
    messagesUrls: MESSAGES_URL.split(',').map((url) => url.trim().replace(/\/$/, '')).filter(Boolean),
    maxReplayEvents: TIME_TRAVEL_MAX_EVENTS,
  });
}
