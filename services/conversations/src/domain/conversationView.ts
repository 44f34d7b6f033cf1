import type { GlobalPin, UserProfileFields } from '@chat/contracts';

/** `pinnedBy` of a conversation pinned for every user by the app (CometChat's literal). */
export const APP_SYSTEM = 'app_system';

/**
 * One user's view of a one-on-one conversation. Both participants have their own document: the
 * unread count and the user's own pin differ per user; the last message is the same.
 */
export interface UserConversationDoc {
  appId: string;
  owner: string;
  conversationId: string;
  conversationType: 'user';
  /** The other participant. */
  peer: string;
  /** False for a document that so far only carries a pin (replayed before its first message). */
  hasMessages: boolean;
  createdAt: number;
  updatedAt: number;
  unreadCount: number;
  /** The last message as the API shows it, kept as JSON text (user data may hold any keys; ADR 0002). */
  lastMessage?: string;
  /** Numeric id of the last message: ids grow per app, so it orders conversations within a second. */
  lastMessageSeq: number;
  /** Set while the owner has pinned it, in seconds. */
  pinnedAt?: number;
  /** Position of the pin in the owner's pin stream: newest-first order even within one second. */
  pinOrder?: number;
}

export interface PeerUserDoc extends UserProfileFields {
  appId: string;
  status: string;
  updatedAt?: number;
}

export interface ConversationResource {
  conversationId: string;
  conversationType: 'user';
  unreadMessageCount: string;
  createdAt: number;
  updatedAt: number;
  lastMessage?: Record<string, unknown>;
  conversationWith: Record<string, unknown>;
  pinnedBy?: string;
  pinnedAt?: number;
}

export function isGloballyPinned(pins: readonly GlobalPin[], peer: string): GlobalPin | undefined {
  return pins.find((pin) => pin.conversationType === 'user' && pin.conversationWith === peer);
}

function renderPeer(peer: PeerUserDoc | null, peerUid: string, conversationId: string): Record<string, unknown> {
  if (!peer) return { uid: peerUid, conversationId };
  const { appId, ...user } = peer;
  void appId;
  return { ...user, conversationId };
}

/**
 * The CometChat Conversation resource. `pinnedBy`/`pinnedAt` are present only while pinned: an
 * app-wide pin shows `app_system` and wins over the user's own pin.
 */
export function renderConversation(
  doc: UserConversationDoc,
  peer: PeerUserDoc | null,
  globalPins: readonly GlobalPin[],
): ConversationResource {
  const globalPin = isGloballyPinned(globalPins, doc.peer);
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
    conversationWith: renderPeer(peer, doc.peer, doc.conversationId),
    ...pin,
  };
}
