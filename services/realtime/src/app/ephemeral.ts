import type { Logger } from 'pino';
import type { EphemeralBus, EphemeralNotice } from '../adapters/ephemeralBus.js';
import type { RedisPresence } from '../adapters/redisPresence.js';
import type { LocalPresence } from '../domain/presence.js';
import { authorizeTyping, typingFrameText, typingRecipients } from '../domain/typing.js';
import type { WriteAccess } from '../domain/typing.js';
import type { BlockIndex } from '../domain/blockIndex.js';
import type { MembershipIndex } from '../domain/membershipIndex.js';
import type { Connection, ConnectionRegistry } from './connections.js';

export interface EphemeralDeps {
  bus: EphemeralBus;
  store: RedisPresence;
  local: LocalPresence;
  registry: ConnectionRegistry;
  index: MembershipIndex;
  blocks: BlockIndex;
  access: WriteAccess;
  /** Who hears of the user's presence: its friends and one-on-one peers. */
  audienceOf(appId: string, uid: string): Promise<string[]>;
  /** How long a replica's word that a user is connected lasts without a heartbeat. */
  vouchMs: number;
  now: () => number;
  logger: Logger;
}

function userKey(appId: string, uid: string): string {
  return `${appId}\n${uid}`;
}

function splitKey(key: string): { appId: string; uid: string } {
  const at = key.indexOf('\n');
  return { appId: key.slice(0, at), uid: key.slice(at + 1) };
}

/**
 * Typing notices and presence (ADR 0077): authorized here, carried between replicas by the bus, and
 * delivered by every replica to the live connections it holds. Nothing of it reaches the event store.
 */
export class Ephemeral {
  /** Whether this replica has beaten once (its first beat finds no alive key of its own, as expected). */
  private beaten = false;
  /** A beat still running (Redis slow) is not overtaken by the next one. */
  private watching = false;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly deps: EphemeralDeps) {}

  /** The client frame handler of `typing_started` and `typing_ended`. */
  readonly typing = (connection: Connection, frame: Record<string, unknown>): void => {
    void authorizeTyping(connection.appId, connection.uid, frame, this.deps.access)
      .then((verdict) => {
        if (verdict.ok) this.deps.bus.publish({ kind: 'typing', ...verdict.notice });
        else connection.send(JSON.stringify({ type: 'error', data: { code: verdict.code, message: verdict.message } }), 'error');
      })
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'a typing notice could not be authorized');
        connection.send(JSON.stringify({ type: 'error', data: { code: 'ERR_TRY_AGAIN', message: 'The typing notice could not be checked; send it again.' } }), 'error');
      });
  };

  /** What another replica (or this one) published. */
  readonly deliver = (notice: EphemeralNotice): void => {
    if (notice.kind === 'typing') {
      const text = typingFrameText(notice);
      for (const uid of typingRecipients(notice, (appId, guid) => this.deps.index.membersOf(appId, guid))) {
        // Nothing between blocked users, either way: the receiver's facts hold both directions.
        if (!this.deps.blocks.apart(notice.appId, uid, notice.sender)) this.send(notice.appId, uid, text, notice.type);
      }
      return;
    }
    const text = JSON.stringify({ type: 'presence', data: { uid: notice.uid, status: notice.status, lastActiveAt: notice.lastActiveAt } });
    for (const uid of notice.audience) this.send(notice.appId, uid, text, 'presence');
  };

  /** A connection of the user opened on this replica. */
  connected(appId: string, uid: string): void {
    if (!this.deps.local.connected(userKey(appId, uid))) return;
    const now = this.deps.now();
    void this.deps.store
      .online(appId, uid, now + this.deps.vouchMs, now)
      .then((cameOnline) => (cameOnline ? this.announce(appId, uid, 'online', Math.floor(now / 1_000)) : undefined))
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'presence (online) not recorded'));
  }

  disconnected(appId: string, uid: string): void {
    this.deps.local.disconnected(userKey(appId, uid), this.deps.now());
  }

  /** Every second or so: the users past their debounce go offline. */
  async tick(): Promise<void> {
    const now = this.deps.now();
    for (const key of this.deps.local.due(now)) {
      const { appId, uid } = splitKey(key);
      if (await this.deps.store.offline(appId, uid, now)) await this.announce(appId, uid, 'offline', Math.floor(now / 1_000));
    }
  }

  /**
   * Every second: this replica's beat, then the users of replicas that stopped beating (killed, or cut
   * off from Redis) go offline, announced once by whichever live replica took them. A beat that finds
   * this replica's own alive key lapsed means a sweeper may have taken its users: it vouches for them
   * again, and those that had gone offline are announced online again.
   */
  async watchReplicas(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    try {
      await this.beatAndSweep(this.deps.now());
    } finally {
      this.watching = false;
    }
  }

  private async beatAndSweep(now: number): Promise<void> {
    const lapsed = await this.deps.store.beat(now);
    if (lapsed && this.beaten) {
      for (const { appId, uid } of this.deps.local.vouched().map(splitKey)) {
        if (await this.deps.store.online(appId, uid, now + this.deps.vouchMs, now)) await this.announce(appId, uid, 'online', Math.floor(now / 1_000));
      }
    }
    this.beaten = true;
    for (const { appId, uid, lastActiveAt } of await this.deps.store.sweep(now)) await this.announce(appId, uid, 'offline', lastActiveAt);
  }

  /**
   * A few times per `vouchMs`: this replica's word for its users, renewed. One at a time: a Redis slow
   * enough that a heartbeat outlasts the interval gets the next one when it is done, not a second
   * beside it.
   */
  heartbeat(): Promise<void> {
    this.refreshing ??= this.deps.store.refresh(this.deps.local.vouched().map(splitKey), this.deps.now() + this.deps.vouchMs).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async announce(appId: string, uid: string, status: 'online' | 'offline', lastActiveAt: number): Promise<void> {
    const audience = await this.deps.audienceOf(appId, uid);
    if (audience.length > 0) this.deps.bus.publish({ kind: 'presence', appId, uid, status, lastActiveAt, audience });
  }

  private send(appId: string, uid: string, text: string, type: string): void {
    for (const connection of this.deps.registry.of(appId, uid) ?? []) if (connection.state === 'live') connection.send(text, type);
  }
}
