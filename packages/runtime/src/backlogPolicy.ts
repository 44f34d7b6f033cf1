/** When the send path stops taking writes because the stack's consumers fall behind (ADR 0054). */
export interface BacklogLimits {
  /**
   * The longest a consumer group may need to apply what it has not yet applied, at the fastest pace it
   * showed recently. Past it, while the backlog keeps growing, writes are refused. 0 turns shedding off.
   */
  maxDrainMs: number;
  /** Backlogs smaller than this many records never shed (a burst that the next fetch clears). */
  minLag: number;
}

/** One consumer group's position on the watched topics at one moment, summed over their partitions. */
export interface GroupPosition {
  groupId: string;
  /** Records on the topics the group has not applied. */
  lag: number;
  /** Records the group has applied (its committed offsets, summed). */
  applied: number;
}

export interface BacklogVerdict {
  shedding: boolean;
  /** What a refused client is told to wait (whole seconds, 1–10). */
  retryAfterSeconds: number;
  /** The group furthest behind, when one is: for logs and metrics. */
  worst: { groupId: string; lag: number; drainMs: number } | null;
}

/** Ticks of history kept per group: the fastest recent pace is what the group is known to manage. */
const PACE_WINDOW = 10;
/** A backlog must have grown on this many ticks in a row before it sheds: a burst grows for one. */
const RISING_TICKS = 2;
const MAX_RETRY_AFTER_S = 10;

interface GroupHistory {
  lag: number;
  applied: number;
  at: number;
  /** Records applied per second, one entry a tick, newest last. */
  paces: number[];
  /** Ticks in a row on which the lag grew. */
  rising: number;
}

/**
 * Judges, tick by tick, whether the consumers keep up with what the send path accepts. A group is
 * behind when its backlog would take longer than `maxDrainMs` to apply at the fastest pace it showed
 * over the last ten ticks, and the backlog has grown on each of the last two: a consumer replaying
 * history (its backlog shrinking) or a burst (cleared by the next fetch) never sheds, a stalled or
 * saturated one does. Once shedding, writes stay refused until every group could apply its backlog in
 * half the bound, so the gate does not flap at the edge. Pure: positions in, verdict out.
 */
export class BacklogPolicy {
  private readonly history = new Map<string, GroupHistory>();
  private shedding = false;

  constructor(private readonly limits: BacklogLimits) {}

  /** The verdict after the positions read at `at` (ms); a group missing from them is forgotten. */
  observe(positions: readonly GroupPosition[], at: number): BacklogVerdict {
    const seen = new Set<string>();
    let worst: BacklogVerdict['worst'] = null;
    let startsShedding = false;
    for (const position of positions) {
      seen.add(position.groupId);
      const history = this.advance(position, at);
      const pace = Math.max(0, ...history.paces);
      const drainMs = position.lag === 0 ? 0 : pace > 0 ? (position.lag / pace) * 1_000 : Number.POSITIVE_INFINITY;
      if (position.lag < this.limits.minLag) continue;
      if (!worst || drainMs > worst.drainMs) worst = { groupId: position.groupId, lag: position.lag, drainMs };
      if (drainMs > this.limits.maxDrainMs && history.rising >= RISING_TICKS) startsShedding = true;
    }
    for (const groupId of this.history.keys()) if (!seen.has(groupId)) this.history.delete(groupId);

    if (this.limits.maxDrainMs <= 0) this.shedding = false;
    else if (startsShedding) this.shedding = true;
    else if (this.shedding && (!worst || worst.drainMs <= this.limits.maxDrainMs / 2)) this.shedding = false;

    const waitMs = worst ? Math.min(worst.drainMs, MAX_RETRY_AFTER_S * 1_000) : 1_000;
    return { shedding: this.shedding, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1_000)), worst };
  }

  private advance(position: GroupPosition, at: number): GroupHistory {
    const previous = this.history.get(position.groupId);
    if (!previous || at <= previous.at) {
      const fresh: GroupHistory = { lag: position.lag, applied: position.applied, at, paces: previous?.paces ?? [], rising: 0 };
      this.history.set(position.groupId, fresh);
      return fresh;
    }
    const seconds = (at - previous.at) / 1_000;
    const paces = [...previous.paces, Math.max(0, position.applied - previous.applied) / seconds].slice(-PACE_WINDOW);
    const next: GroupHistory = {
      lag: position.lag,
      applied: position.applied,
      at,
      paces,
      rising: position.lag > previous.lag ? previous.rising + 1 : 0,
    };
    this.history.set(position.groupId, next);
    return next;
  }
}
