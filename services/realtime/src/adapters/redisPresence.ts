import { PRESENCE_LAST_ACTIVE_FIELD, presenceKey, presenceOf, presenceReplicaField } from '@chat/contracts';
import type { Redis } from 'ioredis';

/** A user's hash outlives its last connection this long, for `lastActiveAt` (then it is "never seen"). */
const KEEP_SECONDS = 30 * 86_400;
/**
 * Users per heartbeat call. One HSET command per user cost this process ~5 µs each to build, write and
 * settle, all in one synchronous run: 50–80 ms of blocked event loop every heartbeat at 10,000 users,
 * which every frame due then waited for. One script call per chunk carries the keys as arguments
 * (~7× less CPU), and each chunk is a fraction of a millisecond of this loop and of Redis.
 */
export const REFRESH_CHUNK = 500;
/** KEYS: the users' hashes; ARGV: this replica's field, the time it vouches until. */
const VOUCH_SCRIPT = "for i = 1, #KEYS do redis.call('HSET', KEYS[i], ARGV[1], ARGV[2]) end return #KEYS";

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

  /**
   * The heartbeat: every user this replica vouches for, a chunk per call, one call after the other, so
   * frames are written between them. (A Redis Cluster would refuse a call whose keys are in several
   * slots; presence runs on one Redis, ADR 0077.)
   */
  async refresh(users: ReadonlyArray<{ appId: string; uid: string }>, until: number): Promise<void> {
    const field = presenceReplicaField(this.replica);
    for (let i = 0; i < users.length; i += REFRESH_CHUNK) {
      const keys = users.slice(i, i + REFRESH_CHUNK).map(({ appId, uid }) => presenceKey(appId, uid));
      await this.redis.eval(VOUCH_SCRIPT, keys.length, ...keys, field, String(until));
    }
  }
}
