import type { KnownEvent } from '@chat/contracts';

/** The block facts of one user: whom it blocked, and who blocked it. */
export interface BlockFacts {
  blocked: readonly string[];
  blockedBy: readonly string[];
}

interface Held {
  blocked: Set<string>;
  blockedBy: Set<string>;
}

type BlockEvent = Extract<KnownEvent, { type: 'UsersBlocked' | 'UsersUnblocked' }>;

function key(appId: string, uid: string): string {
  return `${appId}\n${uid}`;
}

function isBlockEvent(event: KnownEvent): event is BlockEvent {
  return event.type === 'UsersBlocked' || event.type === 'UsersUnblocked';
}

/**
 * Blocks between users, for the users connected on this replica only (ADR 0077's addendum): a typing
 * notice is not delivered to a user who blocked its sender or whom its sender blocked, as CometChat
 * delivers nothing between blocked users. Each user's facts hold both directions, so the replica
 * delivering a notice decides with the receiver's facts alone. Loaded when the user's first connection
 * opens, kept current by the block events the broadcast consumer reads; the events of the last
 * `memoryMs` are folded onto a load, so a block the read model had not applied yet still counts.
 */
export class BlockIndex {
  private readonly held = new Map<string, Held>();
  private readonly recent: Array<{ at: number; event: BlockEvent }> = [];

  constructor(private readonly memoryMs: number) {}

  holds(appId: string, uid: string): boolean {
    return this.held.has(key(appId, uid));
  }

  setUser(appId: string, uid: string, facts: BlockFacts): void {
    this.held.set(key(appId, uid), { blocked: new Set(facts.blocked), blockedBy: new Set(facts.blockedBy) });
    for (const { event } of this.recent) if (event.appId === appId) this.applyTo(event, uid);
  }

  dropUser(appId: string, uid: string): void {
    this.held.delete(key(appId, uid));
  }

  /** A block event read from the users topic: the users it concerns that are held here change. */
  apply(event: KnownEvent, at: number): void {
    if (!isBlockEvent(event)) return;
    this.recent.push({ at, event });
    for (const uid of [event.data.uid, ...this.othersOf(event)]) this.applyTo(event, uid);
  }

  /** Whether held user `uid` and `other` are apart: either blocked the other. */
  apart(appId: string, uid: string, other: string): boolean {
    const facts = this.held.get(key(appId, uid));
    return facts !== undefined && (facts.blocked.has(other) || facts.blockedBy.has(other));
  }

  forgetBefore(now: number): void {
    let drop = 0;
    while (drop < this.recent.length && now - this.recent[drop]!.at > this.memoryMs) drop += 1;
    this.recent.splice(0, drop);
  }

  private othersOf(event: BlockEvent): readonly string[] {
    return event.type === 'UsersBlocked' ? event.data.blockedUids : event.data.unblockedUids;
  }

  /** Applies the event to one held user's facts, on the side it stands on (the blocker, or blocked). */
  private applyTo(event: BlockEvent, uid: string): void {
    const facts = this.held.get(key(event.appId, uid));
    if (!facts) return;
    const adds = event.type === 'UsersBlocked';
    if (uid === event.data.uid) {
      for (const other of this.othersOf(event)) {
        if (adds) facts.blocked.add(other);
        else facts.blocked.delete(other);
      }
    } else if (this.othersOf(event).includes(uid)) {
      if (adds) facts.blockedBy.add(event.data.uid);
      else facts.blockedBy.delete(event.data.uid);
    }
  }
}
