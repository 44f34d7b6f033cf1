import type { GroupScope } from '@chat/contracts';
import type { ConversationType } from './conversationView.js';

/** ms; `from` inclusive, `to` exclusive and absent while a member. */
export interface MembershipInterval {
  from: number;
  to?: number;
}

/**
 * One user's own facts about one conversation: their marks, tags, pin, reset mark and (in a group)
 * their membership. Nothing in it depends on the conversation's messages, so no message ever
 * rewrites it: what the user sees (unread count, last message) is derived when read, from this and
 * the conversation's timeline (`unreadCount.ts`).
 */
export interface ConversationMemberDoc {
  appId: string;
  owner: string;
  conversationId: string;
  conversationType: ConversationType;
  /** The other participant's uid, or the group's guid. */
  peer: string;
  /** Group conversations only: when the owner was a member. */
  membership?: MembershipInterval[];
  scope?: GroupScope;
  /** Seconds: the owner's latest join. */
  joinedAt?: number;
  /** Seconds: the owner's first join (a group conversation's `createdAt` for them). */
  firstJoinedAt?: number;
  /** Message ids: read up to, delivered up to, deleted for the owner up to. */
  readUpTo: number;
  deliveredUpTo: number;
  clearedUpTo: number;
  tags?: string[];
  /** Set while the owner has pinned it, in seconds. */
  pinnedAt?: number;
  /** Position of the pin in the owner's pin stream: newest-first order even within one second. */
  pinOrder?: number;
}

export function conversationMemberDocId(appId: string, owner: string, conversationId: string): string {
  return `${appId}:${owner}:${conversationId}`;
}

export function emptyMember(appId: string, owner: string, conversationId: string, conversationType: ConversationType, peer: string): ConversationMemberDoc {
  return { appId, owner, conversationId, conversationType, peer, readUpTo: 0, deliveredUpTo: 0, clearedUpTo: 0 };
}

/** A join (or an add): opens an interval unless one is open. `at` is the event's time (ms), `joinedAt` its own field (s). */
export function joined(doc: ConversationMemberDoc, at: number, joinedAt: number, scope: GroupScope): ConversationMemberDoc {
  const membership = doc.membership ?? [];
  const open = membership.length > 0 && membership.at(-1)?.to === undefined;
  return {
    ...doc,
    membership: open ? membership : [...membership, { from: at }],
    scope,
    joinedAt: open ? (doc.joinedAt ?? joinedAt) : joinedAt,
    firstJoinedAt: Math.min(doc.firstJoinedAt ?? joinedAt, joinedAt),
  };
}

/** A leave, kick or ban: closes the open interval. */
export function left(doc: ConversationMemberDoc, at: number): ConversationMemberDoc {
  const membership = doc.membership ?? [];
  const last = membership.at(-1);
  if (!last || last.to !== undefined) return doc;
  const { scope, ...rest } = doc;
  void scope;
  return { ...rest, membership: [...membership.slice(0, -1), { from: last.from, to: Math.max(at, last.from) }] };
}

/** Currently a member (a former member keeps the conversation as it was when they left). */
export function isCurrentMember(doc: ConversationMemberDoc | null): boolean {
  const last = doc?.membership?.at(-1);
  return last !== undefined && last.to === undefined;
}
