/**
 * Read-your-writes across services and replicas (beyond CometChat). Every write answers the stream
 * versions it produced in `x-consistency-token`; a read that sends the token back waits (bounded) until
 * the read models it reads have applied those versions, or answers anyway with `x-consistency-stale: true`.
 * The token is opaque to clients: base64url of a JSON list of `[streamId, version]`.
 */
export const consistencyHeaders = {
  token: 'x-consistency-token',
  stale: 'x-consistency-stale',
} as const;

/** A token names at most this many streams (a write touches one or a few). */
const MAX_STREAMS = 64;

export function encodeConsistencyToken(positions: ReadonlyMap<string, number>): string {
  return Buffer.from(JSON.stringify([...positions].slice(0, MAX_STREAMS)), 'utf8').toString('base64url');
}

/** The positions a token names; null when it is not a token this platform issued. */
export function decodeConsistencyToken(token: string): Map<string, number> | null {
  if (token.length > 8_192) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length > MAX_STREAMS) return null;
    const positions = new Map<string, number>();
    for (const entry of parsed) {
      if (!Array.isArray(entry) || entry.length !== 2) return null;
      const [streamId, version] = entry as [unknown, unknown];
      if (typeof streamId !== 'string' || !Number.isSafeInteger(version) || (version as number) < 1) return null;
      positions.set(streamId, Math.max(positions.get(streamId) ?? 0, version as number));
    }
    return positions;
  } catch {
    return null;
  }
}

/**
 * The stream a conversation's messages are appended to (the messages service's conversation log):
 * what a consistency token names after a send, and what a reader of that conversation waits for.
 */
export function conversationLogStreamId(appId: string, conversationId: string): string {
  return `messages:${appId}:${conversationId}`;
}
