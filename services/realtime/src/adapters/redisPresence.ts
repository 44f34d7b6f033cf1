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
/** Every replica that has vouched for users: replica id → epoch ms of its last beat. */
const REPLICAS_KEY = 'realtime:replicas';
/** How many users of a dead replica one sweep step takes at a time (`SPOP` count). */
const SWEEP_STEP = 100;

function aliveKey(replica: string): string {
  return `realtime:replica:${replica}:alive`;
}

/** The users a replica vouches for (`appId\nuid`): what a sweeper takes over when the replica dies. */
function usersKey(replica: string): string {
  return `realtime:replica:${replica}:users`;
}

function member(appId: string, uid: string): string {
  return `${appId}\n${uid}`;
}

/** A user a sweep found offline everywhere: no live replica vouches for it any more. */
export interface SweptUser {
  appId: string;
  uid: string;
  /** Epoch seconds the user was last known connected: the dead replica's last beat, or a later close. */
  lastActiveAt: number;
}

/**
 * This replica's side of presence in Redis (ADR 0077): it vouches for its users with `r:<replica>` =
 * an expiry time, refreshed by the heartbeat; the hash as a whole tells online or offline on any
 * replica, and to the users service. Beside it (ADR 0077's addendum), each replica keeps an alive key
 * that lapses `aliveMs` after its last beat, and the set of users it vouches for, so that a live
 * replica can take a crashed one's users offline (`sweep`) instead of leaving them to lapse unheard.
 */
export class RedisPresence {
  constructor(
    private readonly redis: Redis,
    private readonly replica: string,
    private readonly aliveMs: number,
  ) {}

  /** Vouches for the user; true when no other replica did (it came online everywhere). */
  async online(appId: string, uid: string, until: number, now: number): Promise<boolean> {
    const key = presenceKey(appId, uid);
    const result = await this.redis
      .multi()
      .hgetall(key)
      .hset(key, presenceReplicaField(this.replica), String(until))
      .expire(key, KEEP_SECONDS)
      .sadd(usersKey(this.replica), member(appId, uid))
      .exec();
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
      .srem(usersKey(this.replica), member(appId, uid))
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

  /**
   * This replica's beat (every second): renews its alive key and its entry among the replicas. True
   * when the alive key had lapsed (Redis' clock, no skew between hosts): the replica was away long
   * enough (a stall, a partition from Redis) that a sweeper may have taken its users offline.
   */
  async beat(now: number): Promise<boolean> {
    const result = await this.redis
      .multi()
      .set(aliveKey(this.replica), String(now), 'PX', this.aliveMs, 'GET')
      .hset(REPLICAS_KEY, this.replica, String(now))
      .exec();
    return (result?.[0]?.[1] ?? null) === null;
  }

  /**
   * Takes the users of every replica whose alive key lapsed: drops its word for each and returns those
   * no other replica vouches for. `SPOP` hands each user to one sweeper, so two live replicas sweeping
   * the same dead one announce each user once; the dead replica leaves the list once its set is empty.
   */
  async sweep(now: number): Promise<SweptUser[]> {
    const replicas = Object.entries(await this.redis.hgetall(REPLICAS_KEY)).filter(([id]) => id !== this.replica);
    if (replicas.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const [id] of replicas) pipeline.exists(aliveKey(id));
    const alive = await pipeline.exec();
    const swept: SweptUser[] = [];
    for (const [index, [dead, lastBeat]] of replicas.entries()) {
      if (alive?.[index]?.[1] !== 0) continue;
      const lastSeen = Number(lastBeat) || now;
      for (;;) {
        const taken = await this.redis.spop(usersKey(dead), SWEEP_STEP);
        if (taken.length === 0) break;
        for (const user of taken) {
          const lastActiveAt = await this.release(dead, user, lastSeen, now);
          if (lastActiveAt !== null) swept.push({ ...splitMember(user), lastActiveAt });
        }
      }
      await this.redis.hdel(REPLICAS_KEY, dead);
    }
    return swept;
  }

  /** Drops the dead replica's word for one user; its `lastActiveAt` when it is offline now, else null. */
  private async release(dead: string, user: string, lastSeen: number, now: number): Promise<number | null> {
    const { appId, uid } = splitMember(user);
    const key = presenceKey(appId, uid);
    const result = await this.redis.multi().hdel(key, presenceReplicaField(dead)).hgetall(key).exec();
    const after = (result?.[1]?.[1] ?? {}) as Record<string, string>;
    if (presenceOf(after, now).status !== 'offline') return null;
    // A close on another replica since the dead one's last beat stamped a later time: keep it.
    const stamp = Math.floor(lastSeen / 1_000);
    const stamped = Number(after[PRESENCE_LAST_ACTIVE_FIELD]);
    if (stamped >= stamp) return stamped;
    await this.redis.multi().hset(key, PRESENCE_LAST_ACTIVE_FIELD, String(stamp)).expire(key, KEEP_SECONDS).exec();
    return stamp;
  }
}

function splitMember(user: string): { appId: string; uid: string } {
  const at = user.indexOf('\n');
  return { appId: user.slice(0, at), uid: user.slice(at + 1) };
}
