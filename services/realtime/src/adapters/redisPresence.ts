import { PRESENCE_LAST_ACTIVE_FIELD, presenceKey, presenceOf, presenceReplicaField } from '@chat/contracts';
import type { Redis } from 'ioredis';

/** A user's hash outlives its last connection this long, for `lastActiveAt` (then it is "never seen"). */
const KEEP_SECONDS = 30 * 86_400;

/**
 * This replica's side of presence in Redis (ADR 0077): it vouches for its users with `r:<replica>` =
 * an expiry time, refreshed by the heartbeat; the hash as a whole tells online or offline on any
 * replica, and to the users service.
 */
export class RedisPresence {
  constructor(
    private readonly redis: Redis,
    private readonly replica: string,
  ) {}

  /** Vouches for the user; true when no other replica did (it came online everywhere). */
  async online(appId: string, uid: string, until: number, now: number): Promise<boolean> {
    const key = presenceKey(appId, uid);
    const result = await this.redis.multi().hgetall(key).hset(key, presenceReplicaField(this.replica), String(until)).expire(key, KEEP_SECONDS).exec();
    const before = (result?.[0]?.[1] ?? {}) as Record<string, string>;
    return presenceOf(before, now, this.replica).status === 'offline';
  }

  /** Stops vouching and stamps `lastActiveAt`; true when no other replica vouches (offline everywhere). */
  async offline(appId: string, uid: string, now: number): Promise<boolean> {
    const key = presenceKey(appId, uid);
    const result = await this.redis
      .multi()
      .hdel(key, presenceReplicaField(this.replica))
      .hset(key, PRESENCE_LAST_ACTIVE_FIELD, String(Math.floor(now / 1_000)))
      .expire(key, KEEP_SECONDS)
      .hgetall(key)
      .exec();
    const after = (result?.[3]?.[1] ?? {}) as Record<string, string>;
    return presenceOf(after, now).status === 'offline';
  }

  /** The heartbeat: one pipeline for every user this replica vouches for. */
  async refresh(users: ReadonlyArray<{ appId: string; uid: string }>, until: number): Promise<void> {
    if (users.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const { appId, uid } of users) pipeline.hset(presenceKey(appId, uid), presenceReplicaField(this.replica), String(until));
    await pipeline.exec();
  }
}
