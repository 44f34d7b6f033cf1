import { presenceKey, presenceOf } from '@chat/contracts';
import type { PresenceState } from '@chat/contracts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Presence as the realtime replicas record it (ADR 0077): one HGETALL. Redis away: null, and the
 * user shows its stored status; a profile read never fails for want of presence.
 */
export function redisPresence(redis: Redis, logger: Logger): (appId: string, uid: string) => Promise<PresenceState | null> {
  return async (appId, uid) => {
    try {
      return presenceOf(await redis.hgetall(presenceKey(appId, uid)), Date.now());
    } catch (error) {
      logger.debug({ err: error }, 'presence not read from redis');
      return null;
    }
  };
}
