import { RecentlyUsed } from '@chat/eventsourcing';

/** The two Redis commands the cache needs (ioredis satisfies it). */
export interface RedisCache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, mode: 'EX', seconds: number): Promise<unknown>;
}

/**
 * For a cache held in this process only: an entry in Redis would add its own age to the bound a
 * short-lived cache promises (role rules, auth tokens).
 */
export const NO_REDIS: RedisCache = { get: () => Promise.resolve(null), set: () => Promise.resolve(null) };

/**
 * Refreshes gathered into one origin request: instead of one look-up per hot id as each passes
 * `refreshAfterMs`, a sweep every `everyMs` asks `loadMany` for every entry used within `keepWarmMs`
 * that is at least `refreshAfterMs` old (ADR 0104). Cold loads still go out one by one, at once.
 */
export interface GatheredRefresh<V> {
  /** The origin's answers for many ids, one per id in their order (null: does not exist). Throws when it cannot answer. */
  loadMany: (ids: readonly string[]) => Promise<(V | null)[]>;
  everyMs: number;
  keepWarmMs: number;
}

export interface TieredCacheOptions<V> {
  redis: RedisCache;
  redisKey: (id: string) => string;
  /** The source of truth; null means "does not exist". Throws when it cannot answer. */
  load: (id: string) => Promise<V | null>;
  /** Validates what Redis returned; null discards the entry (and the origin is asked). */
  parse: (raw: string) => V | null;
  /** Entries for ids that exist. */
  capacity: number;
  /**
   * Entries for ids that do not exist, kept apart: a flood of made-up ids then evicts only other
   * made-up ids, never a real one (ADR 0040). Default: `capacity`.
   */
  negativeCapacity?: number;
  /** An entry older than this is never served: the staleness bound when an invalidation is missed. */
  maxAgeMs: number;
  /**
   * A hit older than this triggers a background refresh, so a busy id never waits on Redis; with
   * `gather`, the age from which a sweep refreshes an entry.
   */
  refreshAfterMs: number;
  /** Negative answers are cached in-process only, this long (≤ maxAgeMs). */
  negativeTtlMs: number;
  redisTtlSeconds: number;
  onError: (error: unknown, context: string) => void;
  gather?: GatheredRefresh<V>;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  at: number;
  refreshing: boolean;
}

interface Flight<V> {
  promise: Promise<V | null>;
  /** Set by invalidate(): the answer may predate the change, so it is returned but not cached. */
  stale: boolean;
}

/**
 * In-process LRU → Redis → origin, for values that must stop being served soon after they change.
 * get() answers synchronously on a fresh hit, which is the hot path: no promise, no I/O.
 */
export class TieredCache<V extends object> {
  private readonly lru: RecentlyUsed<string, Entry<V>>;
  /** When each id was last found not to exist. */
  private readonly absent: RecentlyUsed<string, number>;
  private readonly flights = new Map<string, Flight<V>>();
  /** With `gather`: when each id that exists was last asked for, until `keepWarmMs` has passed. */
  private readonly warm = new Map<string, number>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: TieredCacheOptions<V>) {
    this.lru = new RecentlyUsed(options.capacity);
    this.absent = new RecentlyUsed(options.negativeCapacity ?? options.capacity);
    this.now = options.now ?? Date.now;
  }

  get(id: string): V | null | Promise<V | null> {
    const entry = this.lru.get(id);
    if (entry) {
      const now = this.now();
      const age = now - entry.at;
      if (this.options.gather) this.keepWarm(id, now);
      if (age < this.options.maxAgeMs) {
        if (!this.options.gather && age >= this.options.refreshAfterMs && !entry.refreshing) {
          entry.refreshing = true;
          this.fetch(id).catch((error: unknown) => {
            entry.refreshing = false;
            this.options.onError(error, 'background refresh');
          });
        }
        return entry.value;
      }
    } else {
      const absentSince = this.absent.peek(id);
      if (absentSince !== undefined && this.now() - absentSince < this.options.negativeTtlMs) return null;
    }
    return this.fetch(id);
  }

  /**
   * Whether `id` existed when this process last looked (an entry too old to serve still counts: its
   * next get() looks again), without any I/O and without changing what is kept.
   */
  holds(id: string): boolean {
    return this.lru.peek(id) !== undefined;
  }

  /** Drops what this process knows about `id`, including an answer still on its way. */
  invalidate(id: string): void {
    this.lru.delete(id);
    this.absent.delete(id);
    const flight = this.flights.get(id);
    if (flight) {
      flight.stale = true;
      this.flights.delete(id);
    }
  }

  clear(): void {
    this.lru.clear();
    this.absent.clear();
    this.warm.clear();
    for (const flight of this.flights.values()) flight.stale = true;
    this.flights.clear();
  }

  private fetch(id: string): Promise<V | null> {
    const existing = this.flights.get(id);
    if (existing) return existing.promise;
    // An answer is as old as the question: aged from when the look-up started, a slow look-up does not
    // stretch how long a value may be served after the origin changed it (maxAgeMs, ADR 0057).
    return this.track(id, this.now(), this.readThrough(id));
  }

  /** Keeps what `answer` brings for `id` unless `id` is invalidated first. */
  private track(id: string, askedAt: number, answer: Promise<{ value: V | null; fromOrigin: boolean }>): Promise<V | null> {
    const flight: Flight<V> = { promise: Promise.resolve(null), stale: false };
    flight.promise = answer.then(
      ({ value, fromOrigin }) => {
        if (this.flights.get(id) === flight) this.flights.delete(id);
        if (!flight.stale) {
          if (value === null) {
            this.lru.delete(id);
            this.absent.set(id, askedAt);
          } else {
            this.absent.delete(id);
            this.lru.set(id, { value, at: askedAt, refreshing: false });
            if (this.options.gather && !this.warm.has(id)) this.keepWarm(id, askedAt);
            // Only what was not invalidated meanwhile goes to Redis, where it would outlive us.
            if (fromOrigin) this.writeRedis(id, value);
          }
        }
        return value;
      },
      (error: unknown) => {
        if (this.flights.get(id) === flight) this.flights.delete(id);
        throw error;
      },
    );
    this.flights.set(id, flight);
    return flight.promise;
  }

  private keepWarm(id: string, usedAt: number): void {
    this.warm.set(id, usedAt);
    if (this.sweepTimer === undefined && this.options.gather) {
      this.sweepTimer = setTimeout(() => this.sweep(), this.options.gather.everyMs);
      // A cache never keeps its process alive.
      this.sweepTimer.unref();
    }
  }

  /** Refreshes every warm entry old enough, in one `loadMany`; forgets ids unused for `keepWarmMs`. */
  private sweep(): void {
    this.sweepTimer = undefined;
    const gather = this.options.gather;
    if (!gather) return;
    const now = this.now();
    const due: { id: string; entry: Entry<V> }[] = [];
    for (const [id, usedAt] of this.warm) {
      const entry = this.lru.peek(id);
      if (!entry || now - usedAt >= gather.keepWarmMs) this.warm.delete(id);
      else if (!entry.refreshing && now - entry.at >= this.options.refreshAfterMs && !this.flights.has(id)) due.push({ id, entry });
    }
    if (this.warm.size > 0) {
      this.sweepTimer = setTimeout(() => this.sweep(), gather.everyMs);
      this.sweepTimer.unref();
    }
    if (due.length === 0) return;
    const ids = due.map(({ id }) => id);
    const answers = gather.loadMany(ids).then((values) => {
      if (values.length !== ids.length) throw new Error(`${values.length} answers to ${ids.length} ids`);
      return values;
    });
    // Reported once per sweep; each entry is then served until maxAgeMs, and loaded cold after that.
    answers.catch((error: unknown) => this.options.onError(error, 'gathered refresh'));
    due.forEach(({ id, entry }, index) => {
      entry.refreshing = true;
      this.track(id, now, answers.then((values) => ({ value: values[index] ?? null, fromOrigin: true }))).catch(() => {
        entry.refreshing = false;
      });
    });
  }

  private async readThrough(id: string): Promise<{ value: V | null; fromOrigin: boolean }> {
    try {
      const raw = await this.options.redis.get(this.options.redisKey(id));
      const cached = raw === null ? null : this.options.parse(raw);
      if (cached) return { value: cached, fromOrigin: false };
    } catch (error) {
      // Redis is a cache: when it is down the origin still answers, only slower.
      this.options.onError(error, 'redis get');
    }
    return { value: await this.options.load(id), fromOrigin: true };
  }

  private writeRedis(id: string, value: V): void {
    this.options.redis
      .set(this.options.redisKey(id), JSON.stringify(value), 'EX', this.options.redisTtlSeconds)
      .catch((error: unknown) => this.options.onError(error, 'redis set'));
  }
}
