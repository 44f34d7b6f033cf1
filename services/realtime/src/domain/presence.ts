/**
 * Which users are online on this replica (ADR 0077), as a state machine over connection counts: the
 * first connection makes a user online; the last one closing makes it offline only after `debounceMs`
 * without a new one, so a client that reconnects (a network change, a 4008) never flickers offline.
 * Pure: the caller passes the clock and acts on the transitions returned.
 */
export class LocalPresence {
  private readonly counts = new Map<string, number>();
  /** Users with no connection left here, and when they go offline unless one opens first. */
  private readonly leaving = new Map<string, number>();

  constructor(private readonly debounceMs: number) {}

  /** A connection opened; true when the user just came online here (was neither online nor leaving). */
  connected(user: string): boolean {
    const count = this.counts.get(user) ?? 0;
    this.counts.set(user, count + 1);
    if (count > 0) return false;
    return !this.leaving.delete(user);
  }

  /** A connection closed; the last one starts the user's debounce. */
  disconnected(user: string, now: number): void {
    const count = this.counts.get(user);
    if (count === undefined) return;
    if (count > 1) {
      this.counts.set(user, count - 1);
      return;
    }
    this.counts.delete(user);
    this.leaving.set(user, now + this.debounceMs);
  }

  /** The users whose debounce ended by `now`: offline here from now on. */
  due(now: number): string[] {
    const gone: string[] = [];
    for (const [user, at] of this.leaving) {
      if (at > now) continue;
      this.leaving.delete(user);
      gone.push(user);
    }
    return gone;
  }

  /** Users this replica vouches for (connected, or within their debounce): what its heartbeat refreshes. */
  vouched(): string[] {
    return [...this.counts.keys(), ...this.leaving.keys()];
  }
}
