import type { KnownEvent } from '@chat/contracts';

/** The users-topic events that end a user's connections (ADR 0069). */
export const revocationEventTypes = ['AuthTokensRevoked', 'UserDeleted', 'UserDeactivated'] as const;

/** What an event ends: some of a user's tokens, or every connection of the user. */
export type Revocation = { appId: string; uid: string; tokenIds: readonly string[] | 'all' };

export function revocationOf(event: KnownEvent): Revocation | null {
  if (event.type === 'AuthTokensRevoked') return { appId: event.appId, uid: event.data.uid, tokenIds: event.data.tokenIds };
  if (event.type === 'UserDeleted' || event.type === 'UserDeactivated') return { appId: event.appId, uid: event.data.uid, tokenIds: 'all' };
  return null;
}

/**
 * Revocations seen lately, for connections that open just after one: the gateway may have resolved
 * the token from its cache (at most 1 s old) before the revocation reached it. Kept `memoryMs`.
 */
export class RecentRevocations {
  private readonly seen = new Map<string, number>();

  constructor(private readonly memoryMs: number) {}

  note(revocation: Revocation, at: number): void {
    const ids = revocation.tokenIds === 'all' ? ['*'] : revocation.tokenIds;
    for (const id of ids) this.seen.set(`${revocation.appId}\n${revocation.uid}\n${id}`, at);
  }

  /** Whether the token (or its user) was revoked within the memory, as of `now`. */
  revoked(appId: string, uid: string, tokenId: string, now: number): boolean {
    for (const id of [tokenId, '*']) {
      const at = this.seen.get(`${appId}\n${uid}\n${id}`);
      if (at !== undefined && now - at <= this.memoryMs) return true;
    }
    return false;
  }

  forgetBefore(now: number): void {
    for (const [key, at] of this.seen) if (now - at > this.memoryMs) this.seen.delete(key);
  }
}
