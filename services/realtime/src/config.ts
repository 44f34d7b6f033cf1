import { parseEnvironment } from '@chat/contracts';
import { usersUrlSetting } from '@chat/http';
import { loadServiceConfig } from '@chat/runtime';
import type { ServiceConfig } from '@chat/runtime';
import { z } from 'zod';

/**
 * No admission bound (ADR 0020's): a socket's upgrade and an event stream stay open for hours, so
 * counting them as requests in flight would refuse every client past the first hundred.
 */
export interface RealtimeConfig extends Omit<ServiceConfig, 'admission'> {
  /** How far back a cursor resumes: the window every replica keeps (REALTIME_RETENTION_SECONDS). */
  retentionSeconds: number;
  /** The most records the window keeps, whatever their age (REALTIME_RETENTION_EVENTS). */
  retentionEvents: number;
  /** A connection's outgoing buffer past this is closed with 4008 (REALTIME_MAX_BUFFERED_BYTES). */
  maxBufferedBytes: number;
  /** Presence and typing between replicas (ADR 0077). */
  redisUrl: string;
  /** A user goes offline this long after its last connection closes, unless one opens (REALTIME_PRESENCE_OFFLINE_MS). */
  presenceOfflineMs: number;
  /** The users service's replica origins (USERS_URL): asked whether a typing notice's receiver exists (ADR 0101). */
  usersUrls: string[];
}

const realtimeSettings = z.object({
  REALTIME_RETENTION_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  REALTIME_RETENTION_EVENTS: z.coerce.number().int().min(1_000).max(10_000_000).default(200_000),
  REALTIME_MAX_BUFFERED_BYTES: z.coerce.number().int().min(16_384).max(64 * 1024 * 1024).default(1024 * 1024),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  REALTIME_PRESENCE_OFFLINE_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  USERS_URL: usersUrlSetting,
});

/** The only reader of process.env in the realtime service. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<RealtimeConfig> {
  const own = parseEnvironment('realtime', realtimeSettings, env);
  const { admission, ...service } = loadServiceConfig(env, { port: 3108, mongoDb: 'chat_realtime' });
  void admission;
  return Object.freeze({
    ...service,
    retentionSeconds: own.REALTIME_RETENTION_SECONDS,
    retentionEvents: own.REALTIME_RETENTION_EVENTS,
    maxBufferedBytes: own.REALTIME_MAX_BUFFERED_BYTES,
    redisUrl: own.REDIS_URL,
    presenceOfflineMs: own.REALTIME_PRESENCE_OFFLINE_MS,
    usersUrls: own.USERS_URL,
  });
}
