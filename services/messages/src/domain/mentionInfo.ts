/** What a mention's extra facts read of a user (the known-users read model keeps these and more). */
export interface MentionedUserFacts {
  tags?: string[];
  /** Uids this user has blocked. */
  blocked: string[];
}

export interface MentionInfoWanted {
  /** `mentionsWithTagInfo`: each mentioned user's tags. */
  tags: boolean;
  /** `mentionsWithBlockedInfo`: whether the viewer blocked each mentioned user, and the reverse. */
  blockedFor?: string;
}

/**
 * A listed message's `mentionedUsers` with the extra facts a list asked for, taken from the users as
 * they are now (a mention's own entity is a snapshot from send time). Pure: the caller reads `users`.
 */
export function withMentionInfo(
  message: Record<string, unknown>,
  users: ReadonlyMap<string, MentionedUserFacts>,
  wanted: MentionInfoWanted,
): Record<string, unknown> {
  const mentioned = message['mentionedUsers'];
  if (!Array.isArray(mentioned) || mentioned.length === 0) return message;
  const viewer = wanted.blockedFor !== undefined ? users.get(wanted.blockedFor) : undefined;
  const enriched = mentioned.map((entity: unknown) => {
    if (typeof entity !== 'object' || entity === null) return entity;
    const named = (entity as { uid?: unknown }).uid;
    const uid = typeof named === 'string' ? named : '';
    const user = users.get(uid);
    return {
      ...entity,
      ...(wanted.tags ? { tags: user?.tags ?? [] } : {}),
      ...(wanted.blockedFor !== undefined
        ? { blockedByMe: viewer?.blocked.includes(uid) ?? false, hasBlockedMe: user?.blocked.includes(wanted.blockedFor) ?? false }
        : {}),
    };
  });
  return { ...message, mentionedUsers: enriched };
}

/** Every uid the messages mention, to read their facts in one go. */
export function mentionedUidsOf(messages: readonly Record<string, unknown>[]): string[] {
  const uids = new Set<string>();
  for (const message of messages) {
    const list = message['mentionedUids'];
    if (Array.isArray(list)) for (const uid of list) if (typeof uid === 'string') uids.add(uid);
  }
  return [...uids];
}
