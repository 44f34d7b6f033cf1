import type { Upstream } from './config.js';

/** How long a replica that refused a connection is passed over before it is tried again. */
const DEFAULT_SIT_OUT_MS = 1_000;

/**
 * The replicas of one service and which to send the next request to.
 *
 * A request made on behalf of a user goes to the replica that user's key hashes to (affinity). A
 * user's commands mostly append to the same streams (their conversations, their own user stream), and
 * a replica appends to a stream cheaply only while it holds that stream's head: a command that lands on
 * the other replica finds its head stale, collides on the stream position and loads the stream again.
 * Round robin made that the rule for a user sending in a row. Many users spread over every replica,
 * so a large tenant is still balanced.
 *
 * Requests without a user (app-level calls) go round robin, so a burst spreads over every replica. A
 * replica whose connection failed sits out for a moment (it is restarting, or gone) while the others
 * take its share, its users included, and is tried again after that without any health check. When
 * every replica sits out, the round robin goes on among all of them: a refusal then answers as fast as
 * it can, and the first replica back is found at once.
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

  /**
   * `appId` and `uid`: the acting user, whom the request's streams follow; without a user, round robin.
   * Two arguments rather than one key, so a lone replica (the common case) costs no string per request.
   */
  pick(appId?: string, uid?: string): Upstream {
    const count = this.replicas.length;
    if (count === 1) return this.replicas[0]!;
    const now = this.sittingOutUntil.size > 0 ? this.now() : 0;
    if (appId !== undefined && uid !== undefined) {
      const preferred = this.replicas[userHash(appId, uid) % count]!;
      if (this.serving(preferred, now)) return preferred;
    }
    for (let tried = 0; tried < count; tried++) {
      const candidate = this.replicas[this.next]!;
      this.next = (this.next + 1) % count;
      if (this.serving(candidate, now)) return candidate;
    }
    const fallback = this.replicas[this.next]!;
    this.next = (this.next + 1) % count;
    return fallback;
  }

  /** Whether a replica takes requests: it has not failed, or its sit-out is over. */
  private serving(replica: Upstream, now: number): boolean {
    const until = this.sittingOutUntil.get(replica);
    if (until === undefined) return true;
    if (until > now) return false;
    this.sittingOutUntil.delete(replica);
    return true;
  }

  /** The replica refused or dropped a connection: pass it over for a moment. */
  markFailed(upstream: Upstream): void {
    if (this.replicas.length > 1 && this.replicas.includes(upstream)) this.sittingOutUntil.set(upstream, this.now() + this.sitOutMs);
  }
}

/** FNV-1a over the UTF-16 code units of the app id, a separator and the uid: cheap, and spreads similar uids (`u1`, `u2`, …) evenly. */
function userHash(appId: string, uid: string): number {
  let hash = 0x811c9dc5;
  const mix = (code: number) => {
    hash ^= code;
    hash = Math.imul(hash, 0x01000193);
  };
  for (let i = 0; i < appId.length; i++) mix(appId.charCodeAt(i));
  mix(0x0a);
  for (let i = 0; i < uid.length; i++) mix(uid.charCodeAt(i));
  return hash >>> 0;
}

/** A pool per service, and a failure reported by upstream (the proxy knows the upstream, not the service). */
export function upstreamPools<Service extends string>(replicas: Readonly<Record<Service, readonly Upstream[]>>) {
  const pools = new Map<Service, UpstreamPool>();
  for (const [service, upstreams] of Object.entries(replicas) as Array<[Service, readonly Upstream[]]>) {
    pools.set(service, new UpstreamPool(upstreams));
  }
  return {
    pick: (service: Service, appId?: string, uid?: string): Upstream => pools.get(service)!.pick(appId, uid),
    markFailed(upstream: Upstream): void {
      for (const pool of pools.values()) pool.markFailed(upstream);
    },
  };
}
