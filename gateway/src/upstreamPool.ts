import type { Upstream } from './config.js';

/** How long a replica that refused a connection is passed over before it is tried again. */
const DEFAULT_SIT_OUT_MS = 1_000;

/**
 * The replicas of one service and which to send the next request to. Round robin, so a burst spreads
 * over every replica; a replica whose connection failed sits out for a moment (it is restarting, or
 * gone) while the others take its share, and is tried again after that without any health check.
 * When every replica sits out, the round robin goes on among all of them: a refusal then answers as
 * fast as it can, and the first replica back is found at once.
 */
export class UpstreamPool {
  private next = 0;
  private readonly sittingOutUntil = new Map<Upstream, number>();

  constructor(
    readonly replicas: readonly Upstream[],
    private readonly sitOutMs = DEFAULT_SIT_OUT_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (replicas.length === 0) throw new Error('an upstream pool needs at least one replica');
  }

  pick(): Upstream {
    const count = this.replicas.length;
    if (count === 1) return this.replicas[0]!;
    const now = this.sittingOutUntil.size > 0 ? this.now() : 0;
    for (let tried = 0; tried < count; tried++) {
      const candidate = this.replicas[this.next]!;
      this.next = (this.next + 1) % count;
      const until = this.sittingOutUntil.get(candidate);
      if (until === undefined) return candidate;
      if (until <= now) {
        this.sittingOutUntil.delete(candidate);
        return candidate;
      }
    }
    const fallback = this.replicas[this.next]!;
    this.next = (this.next + 1) % count;
    return fallback;
  }

  /** The replica refused or dropped a connection: pass it over for a moment. */
  markFailed(upstream: Upstream): void {
    if (this.replicas.length > 1 && this.replicas.includes(upstream)) this.sittingOutUntil.set(upstream, this.now() + this.sitOutMs);
  }
}

/** A pool per service, and a failure reported by upstream (the proxy knows the upstream, not the service). */
export function upstreamPools<Service extends string>(replicas: Readonly<Record<Service, readonly Upstream[]>>) {
  const pools = new Map<Service, UpstreamPool>();
  for (const [service, upstreams] of Object.entries(replicas) as Array<[Service, readonly Upstream[]]>) {
    pools.set(service, new UpstreamPool(upstreams));
  }
  return {
    pick: (service: Service): Upstream => pools.get(service)!.pick(),
    markFailed(upstream: Upstream): void {
      for (const pool of pools.values()) pool.markFailed(upstream);
    },
  };
}
