import type { GlobalPin, GroupScope, GroupType, UserProfileFields } from '@chat/contracts';

/** `pinnedBy` of a conversation pinned for every user by the app (CometChat's literal). */
export const APP_SYSTEM = 'app_system';

export type ConversationType = 'user' | 'group';

/**
 * One message as the conversation read model remembers it: enough to count unread messages for any
 * reader, and (for the newest entries only) the message as the API shows it.
 */
export interface LedgerEntry {
  /** Numeric message id: ids grow per app, so they order a conversation's messages. */
  id: number;
  sender: string;
  /** When the message was stored (ms, from its envelope): compared with membership intervals. */
  at: number;
  sentAt: number;
  /** Soft-deleted: still the last message, never unread. */
  deleted?: true;
  /** `category: action` (group notices): shown as last message, never unread. */
  action?: true;
  /** The message as JSON text (ADR 0002); kept for the newest entries only. */
  message?: string;
}

export interface GroupProfile {
  guid: string;
  name: string;
  type: GroupType;
  owner: string;
  icon?: string;
  description?: string;
  tags: string[];
  createdAt: number;
  updatedAt?: number;
  updatedBy?: string;
  membersCount: number;
}

/**
 * What every participant of a conversation shares: its recent messages and, for a group, the
 * group's profile. One document per conversation.
 */
export interface SharedConversationDoc {
  appId: string;
  conversationId: string;
  conversationType: ConversationType;
  /** The two users of a one-on-one conversation. */
  participants?: string[];
  group?: GroupProfile;
  groupDeleted?: boolean;
  /** Non-reply messages in id order, the newest LEDGER_LIMIT of them. */
  ledger: LedgerEntry[];
  /** Deleted for every participant up to this message id. */
  clearedUpTo: number;
  /** Derived: shown in the app-wide list. */
  listed: boolean;
  lastMessage?: string;
  lastMessageSeq: number;
  createdAt: number;
  updatedAt: number;
}

export interface MembershipInterval {
  /** ms, inclusive. */
  from: number;
  /** ms, exclusive; absent while a member. */
  to?: number;
}

/**
 * One user's view of one conversation (one-on-one or group). The facts are the user's own (marks,
 * pins, tags, membership); the rest is derived from the shared document by `deriveUserConversation`.
 */
export interface UserConversationDoc {
  appId: string;
  owner: string;
  conversationId: string;
  conversationType: ConversationType;
  /** The other participant's uid, or the group's guid. */
  peer: string;
  // facts
  /** Group conversations only: when the owner was a member. */
  membership?: MembershipInterval[];
  scope?: GroupScope;
  /** Seconds: the owner's latest join. */
  joinedAt?: number;
  /** Seconds: the earliest fact that created this conversation for the owner. */
  firstSeenAt?: number;
  readUpTo: number;
  deliveredUpTo: number;
  clearedUpTo: number;
  tags?: string[];
  /** Set while the owner has pinned it, in seconds. */
  pinnedAt?: number;
  /** Position of the pin in the owner's pin stream: newest-first order even within one second. */
  pinOrder?: number;
  // derived
  /** Shown in the owner's list and readable by them. */
  listed: boolean;
  unreadCount: number;
  lastMessage?: string;
  lastMessageSeq: number;
  createdAt: number;
  updatedAt: number;
  /** The shared document's revision this was derived from: a stale derivation never overwrites a newer one. */
  sharedRev: number;
}

export interface PeerUserDoc extends UserProfileFields {
  appId: string;
  status: string;
  tags?: string[];
  deactivated?: boolean;
  deleted?: 'soft' | 'permanent';
  updatedAt?: number;
}

export interface ConversationResource {
  conversationId: string;
  conversationType: ConversationType;
  unreadMessageCount: string;
  createdAt: number;
  updatedAt: number;
  lastMessage?: Record<string, unknown>;
  conversationWith: Record<string, unknown>;
  tags?: string[];
  pinnedBy?: string;
  pinnedAt?: number;
}

export interface RenderOptions {
  /** Include the conversation's own tags (`withTags`). */
  withTags: boolean;
  /** Include the user's or group's tags in `conversationWith` (`withUserAndGroupTags`). */
  withPeerTags: boolean;
}

export const RENDER_ALL: RenderOptions = { withTags: true, withPeerTags: false };

export function isGloballyPinned(
  pins: readonly GlobalPin[],
  conversationType: ConversationType,
  peer: string,
): GlobalPin | undefined {
  return pins.find((pin) => pin.conversationType === conversationType && pin.conversationWith === peer);
}

function renderUser(peer: PeerUserDoc | null, peerUid: string, conversationId: string, withTags: boolean) {
  if (!peer) return { uid: peerUid, conversationId };
  const { appId, tags, deactivated, deleted, updatedAt, ...user } = peer;
  void appId;
  void deactivated;
  void deleted;
  return {
    ...user,
    ...(updatedAt !== undefined ? { updatedAt } : {}),
    conversationId,
    ...(withTags ? { tags: tags ?? [] } : {}),
  };
}

function renderGroup(group: GroupProfile | undefined, doc: UserConversationDoc | null, guid: string, conversationId: string, withTags: boolean) {
  if (!group) return { guid, conversationId };
  const member = doc?.membership?.at(-1);
  const hasJoined = member !== undefined && member.to === undefined;
  const { tags, ...profile } = group;
  return {
    ...profile,
    conversationId,
    hasJoined,
    ...(hasJoined && doc?.scope ? { scope: doc.scope } : {}),
    ...(hasJoined && doc?.joinedAt !== undefined ? { joinedAt: doc.joinedAt } : {}),
    ...(withTags ? { tags } : {}),
  };
}

/**
 * The CometChat Conversation resource. `pinnedBy`/`pinnedAt` are present only while pinned: an
 * app-wide pin shows `app_system` and wins over the user's own pin.
 */
export function renderConversation(
  doc: UserConversationDoc,
  peer: { user?: PeerUserDoc | null; group?: GroupProfile },
  globalPins: readonly GlobalPin[],
  options: RenderOptions = RENDER_ALL,
): ConversationResource {
  const globalPin = isGloballyPinned(globalPins, doc.conversationType, doc.peer);
  const pin = globalPin
    ? { pinnedBy: APP_SYSTEM, pinnedAt: globalPin.pinnedAt }
    : doc.pinnedAt !== undefined
      ? { pinnedBy: doc.owner, pinnedAt: doc.pinnedAt }
      : {};
  return {
    conversationId: doc.conversationId,
    conversationType: doc.conversationType,
    unreadMessageCount: String(doc.unreadCount),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(doc.lastMessage !== undefined ? { lastMessage: JSON.parse(doc.lastMessage) as Record<string, unknown> } : {}),
    conversationWith:
      doc.conversationType === 'user'
        ? renderUser(peer.user ?? null, doc.peer, doc.conversationId, options.withPeerTags)
        : renderGroup(peer.group, doc, doc.peer, doc.conversationId, options.withPeerTags),
    ...(options.withTags ? { tags: doc.tags ?? [] } : {}),
    ...pin,
  };
}

/**
 * A conversation in the app-wide list (no acting user): nobody's unread count, and for a one-on-one
 * conversation the receiver of its last message as `conversationWith`.
 */
export function renderSharedConversation(
  doc: SharedConversationDoc,
  users: ReadonlyMap<string, PeerUserDoc>,
  options: RenderOptions,
): ConversationResource {
  const last = doc.lastMessage !== undefined ? (JSON.parse(doc.lastMessage) as Record<string, unknown>) : undefined;
  let conversationWith: Record<string, unknown>;
  if (doc.conversationType === 'group') {
    conversationWith = renderGroup(doc.group, null, doc.group?.guid ?? doc.conversationId.replace(/^group_/, ''), doc.conversationId, options.withPeerTags);
  } else {
    const receiver = typeof last?.['receiver'] === 'string' ? last['receiver'] : (doc.participants?.[1] ?? '');
    conversationWith = renderUser(users.get(receiver) ?? null, receiver, doc.conversationId, options.withPeerTags);
  }
  return {
    conversationId: doc.conversationId,
    conversationType: doc.conversationType,
    unreadMessageCount: '0',
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(last ? { lastMessage: last } : {}),
    conversationWith,
  };
}
