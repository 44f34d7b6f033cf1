import type { KnownEvent } from '@chat/contracts';

/**
 * One-on-one conversation peers seen on the messages topic within the retention window (ADR 0077):
 * who, besides friends, hears of a user's presence. Every replica reads every message, so each holds
 * the same index and the replica announcing a change names the audience itself. Bounded by age (the
 * window's) and by count (oldest pair first), like the window.
 */
export class RecentPeers {
  /** `app\na\nb` (a < b) → last message time, in order of that time (a refresh moves it to the end). */
  private readonly pairs = new Map<string, number>();
  private readonly byUser = new Map<string, Set<string>>();

  constructor(private readonly limits: { maxAgeMs: number; maxPairs: number }) {}

  observe(event: KnownEvent | null, timestamp: number): void {
    if (event?.type !== 'MessageSent' || event.data.receiverType !== 'user' || event.data.imported) return;
    const { sender, receiver } = event.data;
    if (sender === receiver) return;
    const [a, b] = sender < receiver ? [sender, receiver] : [receiver, sender];
    const pair = `${event.appId}\n${a}\n${b}`;
    this.pairs.delete(pair);
    this.pairs.set(pair, timestamp);
    this.link(`${event.appId}\n${a}`, b);
    this.link(`${event.appId}\n${b}`, a);
    if (this.pairs.size > this.limits.maxPairs) this.drop(this.pairs.keys().next().value as string);
  }

  peersOf(appId: string, uid: string): string[] {
    return [...(this.byUser.get(`${appId}\n${uid}`) ?? [])];
  }

  evict(now: number): void {
    for (const [pair, at] of this.pairs) {
      if (at >= now - this.limits.maxAgeMs) return;
      this.drop(pair);
    }
  }

  private link(user: string, peer: string): void {
    let peers = this.byUser.get(user);
    if (!peers) this.byUser.set(user, (peers = new Set()));
    peers.add(peer);
  }

  private drop(pair: string): void {
    this.pairs.delete(pair);
    const [appId, a, b] = pair.split('\n') as [string, string, string];
    this.unlink(`${appId}\n${a}`, b);
    this.unlink(`${appId}\n${b}`, a);
  }

  private unlink(user: string, peer: string): void {
    const peers = this.byUser.get(user);
    peers?.delete(peer);
    if (peers?.size === 0) this.byUser.delete(user);
  }
}
