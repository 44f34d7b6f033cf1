/*
 * Presence in Redis (ADR 0077): one hash per user, written by the realtime replicas and read by the
 * users service (`GET /users/{uid}`). Field `r:<replica>` = the epoch ms until which that replica
 * vouches for a connection of the user (refreshed by its heartbeat, so a crashed replica's users go
 * offline when it lapses); field `lastActiveAt` = epoch seconds when the user's last connection closed.
 */

const REPLICA_FIELD = 'r:';
export const PRESENCE_LAST_ACTIVE_FIELD = 'lastActiveAt';

export function presenceKey(appId: string, uid: string): string {
  return `presence:${appId}:${uid}`;
}

export function presenceReplicaField(replica: string): string {
  return `${REPLICA_FIELD}${replica}`;
}

export interface PresenceState {
  status: 'online' | 'offline';
  /** Epoch seconds: now while online, else when the last connection closed (absent: never connected). */
  lastActiveAt?: number;
}

/** The user's presence from its hash; `except` ignores one replica's own field. */
export function presenceOf(hash: Readonly<Record<string, string>>, nowMs: number, except?: string): PresenceState {
  const own = except === undefined ? undefined : presenceReplicaField(except);
  const online = Object.entries(hash).some(([field, until]) => field.startsWith(REPLICA_FIELD) && field !== own && Number(until) > nowMs);
  if (online) return { status: 'online', lastActiveAt: Math.floor(nowMs / 1_000) };
  const last = Number(hash[PRESENCE_LAST_ACTIVE_FIELD]);
  return Number.isInteger(last) && last > 0 ? { status: 'offline', lastActiveAt: last } : { status: 'offline' };
}
