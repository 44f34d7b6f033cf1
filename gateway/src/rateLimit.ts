import type { RouteSpec } from '@chat/contracts';

/**
 * Per-app request limits as CometChat documents them (`articles/rate-limits`): "core" operations
 * (create and delete users, create and join groups) and "standard" ones (everything else), each
 * counted per app per minute.
 */
export type RateClass = 'core' | 'standard';

export interface RateLimits {
  core: number;
  standard: number;
  /** Per-app limits that differ from the defaults (a plan, or a tiny limit for a test). */
  apps?: Readonly<Record<string, Partial<Record<RateClass, number>>>>;
}

/** CometChat's published per-minute figures. */
export const DEFAULT_RATE_LIMITS: RateLimits = { core: 10_000, standard: 20_000 };

const CORE_OPERATIONS = new Set(['create-user', 'delete-user', 'deactivate-users', 'create-group', 'add-group-members']);

export function rateClassOf(route: RouteSpec): RateClass {
  return CORE_OPERATIONS.has(route.operationId) ? 'core' : 'standard';
}

/** Shared counters (Redis in production): adds to a window's count and answers the new total. */
export interface WindowCounterStore {
  add(entries: readonly { key: string; amount: number }[], ttlSeconds: number): Promise<number[]>;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window resets. */
  resetAt: number;
  /** Seconds to wait before retrying (only meaningful when refused). */
  retryAfter: number;
}

interface WindowCount {
  /** The total across replicas as Redis last reported it. */
  shared: number;
  /** Requests this replica counted since the last sync. */
  unsynced: number;
  /** Requests this replica sent in the sync now in flight (added to Redis, not yet in `shared`). */
  inFlight: number;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows, counted without an await on the request path: each replica counts in
 * memory and a background timer adds its counts to Redis every `syncIntervalMs`, learning the
 * others' counts in the same round trip. The tolerance is therefore what the other replicas admit
 * between two syncs: at most (replicas − 1) × their request rate × `syncIntervalMs` over the limit
 * (documented in ADR 0010). A Redis outage leaves each replica enforcing the limit on its own counts.
 */
export class RateLimiter {
  private readonly windows = new Map<string, WindowCount>();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private syncing = false;

  constructor(
    private readonly limits: RateLimits,
    private readonly store: WindowCounterStore | undefined,
    private readonly options: { syncIntervalMs: number; now?: () => number; onSyncError?: (error: unknown) => void },
  ) {}

  /**
   * Syncs every `syncIntervalMs` while this replica holds a count of the current window, and not at
   * all while it holds none (ADR 0139): a sync then has nothing to add and nothing to read back, and a
   * timer firing anyway woke an idle gateway ten times a second. The first request of a window starts
   * the timer again; the sync that finds every window past stops it.
   */
  start(): void {
    this.started = true;
    if (this.windows.size > 0) this.runTimer();
  }

  stop(): void {
    this.started = false;
    this.stopTimer();
  }

  private runTimer(): void {
    if (!this.store || !this.started || this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.options.syncIntervalMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Counts one request of `appId` and says whether it is within the limit. Synchronous by design. */
  take(appId: string, rateClass: RateClass): RateDecision {
    const now = this.now();
    const window = Math.floor(now / WINDOW_MS);
    const resetAt = ((window + 1) * WINDOW_MS) / 1000;
    const limit = this.limits.apps?.[appId]?.[rateClass] ?? this.limits[rateClass];
    const key = `gateway:rate:${appId}:${rateClass}:${window}`;
    let count = this.windows.get(key);
    if (!count) {
      this.windows.set(key, (count = { shared: 0, unsynced: 0, inFlight: 0 }));
      this.runTimer();
    }
    const used = count.shared + count.inFlight + count.unsynced;
    if (used >= limit) {
      return { allowed: false, limit, remaining: 0, resetAt, retryAfter: Math.max(1, Math.ceil(resetAt - now / 1000)) };
    }
    count.unsynced += 1;
    return { allowed: true, limit, remaining: limit - used - 1, resetAt, retryAfter: 0 };
  }

  /** Adds this replica's new counts to the shared ones and learns the totals; drops past windows. */
  async sync(): Promise<void> {
    if (!this.store || this.syncing) return;
    this.syncing = true;
    const current = Math.floor(this.now() / WINDOW_MS);
    const batch: { key: string; count: WindowCount; amount: number }[] = [];
    for (const [key, count] of this.windows) {
      const window = Number(key.slice(key.lastIndexOf(':') + 1));
      if (window < current) {
        this.windows.delete(key);
        continue;
      }
      // Windows with nothing new are still read back (amount 0) so other replicas' counts arrive.
      batch.push({ key, count, amount: count.unsynced });
      count.inFlight = count.unsynced;
      count.unsynced = 0;
    }
    try {
      if (batch.length === 0) {
        this.stopTimer();
        return;
      }
      const totals = await this.store.add(
        batch.map(({ key, amount }) => ({ key, amount })),
        Math.ceil((2 * WINDOW_MS) / 1000),
      );
      batch.forEach(({ count }, index) => {
        count.shared = Math.max(count.shared + count.inFlight, totals[index] ?? 0);
        count.inFlight = 0;
      });
    } catch (error) {
      // Keep the counts: they are added on the next successful sync.
      for (const { count } of batch) {
        count.unsynced += count.inFlight;
        count.inFlight = 0;
      }
      this.options.onSyncError?.(error);
    } finally {
      this.syncing = false;
    }
  }
}

/** CometChat's rate-limit headers (`X-Rate-Limit-Reset` in epoch seconds) and `Retry-After` on a 429. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-rate-limit': String(decision.limit),
    'x-rate-limit-remaining': String(decision.remaining),
    'x-rate-limit-reset': String(Math.ceil(decision.resetAt)),
    ...(decision.allowed ? {} : { 'retry-after': String(decision.retryAfter) }),
  };
}
