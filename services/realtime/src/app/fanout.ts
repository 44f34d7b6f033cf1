import { topics } from '@chat/contracts';
import type { KnownEvent } from '@chat/contracts';
import type { BroadcastRecord } from '@chat/kafka';
import { covers, encodeCursor, maxVector } from '../domain/cursor.js';
import { cursorFrameText, messageIdOf, planFrame } from '../domain/frames.js';
import type { FramePlan } from '../domain/frames.js';
import { membershipChangesOf } from '../domain/membership.js';
import type { BlockIndex } from '../domain/blockIndex.js';
import type { MembershipIndex } from '../domain/membershipIndex.js';
import type { RetentionWindow, WindowEntry } from '../domain/retentionWindow.js';
import { revocationOf } from '../domain/revocations.js';
import type { RecentRevocations } from '../domain/revocations.js';
import { closeCodes } from './connections.js';
import type { Connection, ConnectionRegistry } from './connections.js';

export interface FanoutDeps {
  window: RetentionWindow;
  index: MembershipIndex;
  registry: ConnectionRegistry;
  revocations: RecentRevocations;
  blocks: BlockIndex;
  now: () => number;
}

/**
 * Hands each record the broadcast consumer reads to the connections it concerns (ADR 0069), in one
 * synchronous pass per batch: the window, the membership index and every live connection move
 * together, so a resume that reads the window and then goes live sees each record exactly once.
 */
export class Fanout {
  constructor(private readonly deps: FanoutDeps) {}

  onStart(starts: ReadonlyArray<{ topic: string; partition: number; offset: number }>): void {
    for (const { topic, partition, offset } of starts) this.deps.window.begin(topic, partition, offset);
  }

  onBatch(topic: string, partition: number, records: readonly BroadcastRecord[]): void {
    if (topic === topics.users) {
      for (const record of records) {
        if (!record.event) continue;
        this.deps.blocks.apply(record.event, record.timestamp);
        this.revoke(record.event, record.timestamp);
      }
      return;
    }
    const { window, index } = this.deps;
    // With no connection here no frame can go out (the pass is synchronous: none arrives during
    // it), so none is planned; the window and the index still take every record, for later resumes.
    const planning = this.deps.registry.size > 0;
    for (const record of records) {
      const event = record.event;
      const id = planning && event ? messageIdOf(event) : undefined;
      const before = event && id !== undefined ? window.message(event.appId, id) : null;
      const entry = window.record(topic, partition, record.offset, record.timestamp, event);
      if (!entry) continue;
      for (const change of membershipChangesOf(entry.event)) index.apply(change);
      if (!planning) continue;
      const plan = planFrame(entry.event, (id !== undefined ? window.message(entry.event.appId, id) : null) ?? before, (appId, guid) => index.membersOf(appId, guid));
      if (plan) this.deliver(plan, entry);
    }
  }

  /** What the window says about the message a replayed record is about (for a resume). */
  planOf(entry: WindowEntry): FramePlan | null {
    const id = messageIdOf(entry.event);
    const doc = id !== undefined ? this.deps.window.message(entry.event.appId, id) : null;
    return planFrame(entry.event, doc, (appId, guid) => this.deps.index.membersOf(appId, guid));
  }

  private deliver(plan: FramePlan, entry: WindowEntry): void {
    let shared: string | undefined;
    for (const uid of plan.recipients) {
      const connections = this.deps.registry.of(plan.appId, uid);
      if (!connections) continue;
      let data: string | undefined;
      for (const connection of connections) {
        if (connection.state !== 'live' || this.below(connection, entry)) continue;
        const cursor = connection.floor ? encodeCursor(maxVector(connection.floor, this.deps.window.vector())) : (shared ??= encodeCursor(this.deps.window.vector()));
        data ??= plan.dataJson(uid);
        connection.send(cursorFrameText(plan.type, cursor, data), plan.type, cursor);
      }
    }
  }

  /** A record this connection already had from the replica its cursor came from. */
  private below(connection: Connection, entry: WindowEntry): boolean {
    const floor = connection.floor;
    if (!floor) return false;
    if (entry.offset < floor[entry.topic]![entry.partition]!) return true;
    // Once this replica has read past the floor everywhere, the connection is like any other.
    if (covers(this.deps.window.vector(), floor)) connection.floor = null;
    return false;
  }

  private revoke(event: KnownEvent, timestamp: number): void {
    const revocation = revocationOf(event);
    if (!revocation) return;
    this.deps.revocations.note(revocation, timestamp);
    for (const connection of this.deps.registry.of(revocation.appId, revocation.uid) ?? []) {
      if (revocation.tokenIds === 'all' || revocation.tokenIds.includes(connection.tokenId)) connection.close(closeCodes.unauthorized, 'auth token revoked');
    }
  }
}
