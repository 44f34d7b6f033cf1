import type { Logger } from 'pino';
import { covers, decodeCursor, encodeCursor, maxVector } from '../domain/cursor.js';
import type { CursorVector } from '../domain/cursor.js';
import type { BlockFacts, BlockIndex } from '../domain/blockIndex.js';
import { cursorFrameText } from '../domain/frames.js';
import { foldMemberships } from '../domain/membership.js';
import type { MembershipIndex } from '../domain/membershipIndex.js';
import type { RetentionWindow } from '../domain/retentionWindow.js';
import type { RecentRevocations } from '../domain/revocations.js';
import { closeCodes } from './connections.js';
import type { Connection, ConnectionRegistry } from './connections.js';
import type { Fanout } from './fanout.js';

/** A frame without a cursor: the client re-reads over REST, then takes live frames (ADR 0069). */
export const RESYNC_FRAME = '{"type":"resync_required"}';

export interface SessionDeps {
  window: RetentionWindow;
  index: MembershipIndex;
  registry: ConnectionRegistry;
  revocations: RecentRevocations;
  fanout: Fanout;
  /** The user's groups from the read model (realtime's own projection of the conversations topic). */
  groupsOf(appId: string, uid: string): Promise<string[]>;
  /** Blocks of connected users, kept from their typing notices (ADR 0077's addendum). */
  blocks: BlockIndex;
  blocksOf(appId: string, uid: string): Promise<BlockFacts>;
  now: () => number;
  logger: Logger;
  /** Told when a user's first connection here opens and its last one closes (presence, ADR 0077). */
  presence?: { connected(appId: string, uid: string): void; disconnected(appId: string, uid: string): void };
}

/**
 * Opens and closes connections: the user's groups, then the replay of what it missed, then live.
 * Everything after the groups are loaded runs in one synchronous step, so the fan-out (which runs
 * between awaits) delivers to the connection exactly what the replay did not.
 */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  /** False for a token (or user) revoked moments ago, which the gateway's cache may still have let in. */
  admits(appId: string, uid: string, tokenId: string): boolean {
    return !this.deps.revocations.revoked(appId, uid, tokenId, this.deps.now());
  }

  /**
   * `since`: the cursor of the last frame the client had (undefined: from now). A cursor that is not
   * ours, or older than the window, gets `resync_required` and then live frames.
   */
  async open(connection: Connection, since: string | undefined): Promise<void> {
    const { registry, index, window, revocations, now } = this.deps;
    if (revocations.revoked(connection.appId, connection.uid, connection.tokenId, now())) {
      return connection.close(closeCodes.unauthorized, 'auth token revoked');
    }
    if (registry.add(connection)) this.deps.presence?.connected(connection.appId, connection.uid);
    // From now, if no cursor: what the window reads while the groups load is replayed below.
    const from: CursorVector | null = since === undefined ? window.vector() : decodeCursor(since);
    if (!index.holds(connection.appId, connection.uid)) {
      let groups: string[];
      let blocks: BlockFacts;
      try {
        [groups, blocks] = await Promise.all([this.deps.groupsOf(connection.appId, connection.uid), this.deps.blocksOf(connection.appId, connection.uid)]);
      } catch (error) {
        this.deps.logger.warn({ err: error, appId: connection.appId }, 'group memberships could not be read; the connection is closed for the client to retry');
        return connection.close(closeCodes.goingAway, 'try again');
      }
      if (connection.state === 'closed') return;
      // A second connection of the user may have loaded them meanwhile; either answer is as current.
      if (!index.holds(connection.appId, connection.uid)) {
        index.setUser(connection.appId, connection.uid, foldMemberships(groups, connection.appId, connection.uid, window.membershipChanges()));
        this.deps.blocks.setUser(connection.appId, connection.uid, blocks);
      }
    }
    if (connection.state === 'closed') return;
    this.replay(connection, from);
    connection.state = 'live';
  }

  /** A connection's transport closed (by the client, or by us). */
  closed(connection: Connection): void {
    connection.state = 'closed';
    if (!this.deps.registry.remove(connection)) return;
    this.deps.index.dropUser(connection.appId, connection.uid);
    this.deps.blocks.dropUser(connection.appId, connection.uid);
    this.deps.presence?.disconnected(connection.appId, connection.uid);
  }

  private replay(connection: Connection, from: CursorVector | null): void {
    const { window, fanout } = this.deps;
    const entries = from ? window.after(from) : null;
    if (!from || !entries) {
      connection.send(RESYNC_FRAME, 'resync_required');
      return;
    }
    const progress = from.map((offsets) => [...offsets]);
    for (const entry of entries) {
      progress[entry.topic]![entry.partition] = entry.offset + 1;
      const plan = fanout.planOf(entry);
      if (!plan || plan.appId !== connection.appId || !plan.recipients.has(connection.uid)) continue;
      const cursor = encodeCursor(progress);
      connection.send(cursorFrameText(plan.type, cursor, plan.dataJson(connection.uid)), plan.type, cursor);
      if (connection.state === 'closed') return;
    }
    // A cursor from a replica that had read further: what lies below it here was delivered there.
    const position = window.vector();
    if (!covers(position, from)) connection.floor = maxVector(from, position);
  }
}
