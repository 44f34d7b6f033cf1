import { REALTIME_CLOSE_TOKEN_REVOKED, REALTIME_CLOSE_TOO_SLOW } from '@chat/contracts';
import type { CursorVector } from '../domain/cursor.js';

/** Close codes a client acts on (ADR 0069): resume with the cursor after 4008; log in again after 4401. */
export const closeCodes = { slowClient: REALTIME_CLOSE_TOO_SLOW, unauthorized: REALTIME_CLOSE_TOKEN_REVOKED, goingAway: 1001 } as const;

/** One client's transport (a WebSocket or an SSE response), as the fan-out writes to it. */
export interface ClientChannel {
  /** Queues a frame; `cursor` and `type` are what SSE puts in `id:` and `event:`. */
  send(text: string, type: string, cursor: string | undefined): void;
  /** Bytes queued and not yet taken by the client's connection. */
  bufferedBytes(): number;
  close(code: number, reason: string): void;
}

/**
 * One open connection of a user on this replica. `opening` while its groups are loaded and its resume
 * replayed (nothing live reaches it then: the replay covers what arrives meanwhile); `floor` when its
 * cursor came from a replica that had read further than this one (records below it were delivered).
 */
export class Connection {
  state: 'opening' | 'live' | 'closed' = 'opening';
  floor: CursorVector | null = null;

  constructor(
    readonly appId: string,
    readonly uid: string,
    readonly tokenId: string,
    private readonly channel: ClientChannel,
    private readonly maxBufferedBytes: number,
  ) {}

  /**
   * Sends unless closed; a client whose buffer is past the bound is closed (4008), so a reader that
   * stopped never grows this process's memory past one frame beyond the bound.
   */
  send(text: string, type: string, cursor?: string): void {
    if (this.state === 'closed') return;
    this.channel.send(text, type, cursor);
    if (this.channel.bufferedBytes() > this.maxBufferedBytes) this.close(closeCodes.slowClient, 'client too slow: resume with the last cursor');
  }

  close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.channel.close(code, reason);
  }
}

function userKey(appId: string, uid: string): string {
  return `${appId}\n${uid}`;
}

/** The connections this replica holds, per (app, user). */
export class ConnectionRegistry {
  private readonly byUser = new Map<string, Set<Connection>>();
  private count = 0;

  /** Adds it; true when it is the user's first connection here. */
  add(connection: Connection): boolean {
    const key = userKey(connection.appId, connection.uid);
    let set = this.byUser.get(key);
    if (!set) this.byUser.set(key, (set = new Set()));
    set.add(connection);
    this.count += 1;
    return set.size === 1;
  }

  /** Removes it; true when it was the user's last connection here. */
  remove(connection: Connection): boolean {
    const key = userKey(connection.appId, connection.uid);
    const set = this.byUser.get(key);
    if (!set?.delete(connection)) return false;
    this.count -= 1;
    if (set.size > 0) return false;
    this.byUser.delete(key);
    return true;
  }

  of(appId: string, uid: string): ReadonlySet<Connection> | undefined {
    return this.byUser.get(userKey(appId, uid));
  }

  all(): IterableIterator<Set<Connection>> {
    return this.byUser.values();
  }

  get size(): number {
    return this.count;
  }
}
