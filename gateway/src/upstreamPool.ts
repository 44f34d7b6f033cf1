import { connect } from 'node:net';
import type { Upstream } from './config.js';

/** How long a replica that refused a connection is passed over before it is tried again. */
const DEFAULT_SIT_OUT_MS = 1_000;
/** A connection probe that has not connected by then counts as refused. */
const PROBE_TIMEOUT_MS = 1_000;

/** Whether a TCP connection to the replica opens (it listens again); the socket is closed at once. */
export type ConnectionProbe = (upstream: Upstream) => Promise<boolean>;

export const probeConnection: ConnectionProbe = (upstream) =>
  new Promise((resolve) => {
    const socket = connect({ host: upstream.hostname, port: upstream.port });
    const done = (connected: boolean) => {
      socket.destroy();
      resolve(connected);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

export interface UpstreamPoolOptions {
  sitOutMs?: number;
  now?: () => number;
  /**
   * Asked, once a sit-out is over, whether the replica takes connections again; until it says yes the
   * replica stays out and no request is sent there to find out. Without it, the replica is simply
   * tried again with the next request.
   */
  probe?: ConnectionProbe;
}

/** A replica passed over: until when, and whether a probe is asking about it right now. */
interface SittingOut {
  until: number;
  probing: boolean;
}

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
 * replica whose connection failed sits out (it is restarting, or gone) while the others take its
 * share, its users included. When the sit-out is over, a connection probe, not a client's request,
 * finds out whether it is back: a replica that stays away for a while (a planned leave, a crash) costs
 * only the requests that met it first, where a live request sent each second to find out used to be
 * refused each time (ADR 0036). When every replica sits out, the round robin goes on among all of
 * them: a refusal then answers as fast as it can, and the first replica back is found at once.
 */
export class UpstreamPool {
  private next = 0;
  private readonly sittingOut = new Map<Upstream, SittingOut>();
  private readonly sitOutMs: number;
  private readonly now: () => number;
  private readonly probe: ConnectionProbe | undefined;

  constructor(
    readonly replicas: readonly Upstream[],
    options: UpstreamPoolOptions = {},
  ) {
    if (replicas.length === 0) throw new Error('an upstream pool needs at least one replica');
    this.sitOutMs = options.sitOutMs ?? DEFAULT_SIT_OUT_MS;
    this.now = options.now ?? Date.now;
    this.probe = options.probe;
  }

  /**
   * `appId` and `uid`: the acting user, whom the request's streams follow; without a user, round robin.
   * Two arguments rather than one key, so a lone replica (the common case) costs no string per request.
   */
  pick(appId?: string, uid?: string): Upstream {
    const count = this.replicas.length;
    if (count === 1) return this.replicas[0]!;
    const now = this.sittingOut.size > 0 ? this.now() : 0;
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

  /** Whether a replica takes requests: it has not failed, or its sit-out is over (and a probe found it back). */
  private serving(replica: Upstream, now: number): boolean {
    const out = this.sittingOut.get(replica);
    if (out === undefined) return true;
    if (out.until > now) return false;
    if (!this.probe) {
      this.sittingOut.delete(replica);
      return true;
    }
    if (!out.probing) this.startProbe(replica, out);
    return false;
  }

  private startProbe(replica: Upstream, out: SittingOut): void {
    out.probing = true;
    void this.probe!(replica).then((connected) => {
      // A failure reported meanwhile replaced the entry: that one decides.
      if (this.sittingOut.get(replica) !== out) return;
      if (connected) this.sittingOut.delete(replica);
      else {
        out.until = this.now() + this.sitOutMs;
        out.probing = false;
      }
    });
  }

  /** The replica refused or dropped a connection: pass it over until it is back. */
  markFailed(upstream: Upstream): void {
    if (this.replicas.length > 1 && this.replicas.includes(upstream)) this.sittingOut.set(upstream, { until: this.now() + this.sitOutMs, probing: false });
  }

  /**
   * Another replica to send a request to that met a refusal at `failed` (already reported through
   * `markFailed`); undefined when there is none that serves.
   */
  alternativeTo(failed: Upstream, appId?: string, uid?: string): Upstream | undefined {
    if (this.replicas.length === 1) return undefined;
    const picked = this.pick(appId, uid);
    return picked === failed || !this.serving(picked, this.now()) ? undefined : picked;
  }
}

/** FNV-1a over the UTF-16 code units of the app id, a separator and the uid: cheap, and spreads similar uids (`u1`, `u2`, …) evenly. */
export function userHash(appId: string, uid: string): number {
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
export function upstreamPools<Service extends string>(replicas: Readonly<Record<Service, readonly Upstream[]>>, options: UpstreamPoolOptions = {}) {
  const pools = new Map<Service, UpstreamPool>();
  for (const [service, upstreams] of Object.entries(replicas) as Array<[Service, readonly Upstream[]]>) {
    pools.set(service, new UpstreamPool(upstreams, options));
  }
  return {
    pick: (service: Service, appId?: string, uid?: string): Upstream => pools.get(service)!.pick(appId, uid),
    /** Another serving replica of the service `failed` belongs to (the proxy knows the upstream, not the service). */
    alternativeTo(failed: Upstream, appId?: string, uid?: string): Upstream | undefined {
      for (const pool of pools.values()) if (pool.replicas.includes(failed)) return pool.alternativeTo(failed, appId, uid);
      return undefined;
    },
    markFailed(upstream: Upstream): void {
      for (const pool of pools.values()) pool.markFailed(upstream);
    },
  };
}
