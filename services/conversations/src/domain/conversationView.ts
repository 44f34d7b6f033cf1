import type { GlobalPin, GroupSummary, UserProfileFields } from '@chat/contracts';
import type { ConversationMemberDoc } from './conversationMember.js';
import type { TimelineDoc } from './conversationTimeline.js';
import type { ConversationView } from './unreadCount.js';

/** `pinnedBy` of a conversation pinned for every user by the app (CometChat's literal). */
export const APP_SYSTEM = 'app_system';

export type ConversationType = 'user' | 'group';

/** The group a group conversation shows: its summary, its tags and what the timeline adds. */
export interface ConversationGroup extends GroupSummary {
  tags: string[];
  createdAt: number;
  updatedAt?: number;
  updatedBy?: string;
  membersCount: number;
}

/**
 * One user's conversation as the API shows it: their own facts (member document) and what they see
 * of the conversation's timeline, derived when read (`unreadCount.ts`). Never stored.
 */
export type UserConversation = ConversationMemberDoc & ConversationView;

/** A conversation in the app-wide list: the timeline's shared fields. */
export type AppConversation = Pick<
  TimelineDoc,
  'conversationId' | 'conversationType' | 'participants' | 'group' | 'lastMessage' | 'lastMessageSeq' | 'createdAt' | 'updatedAt'
>;

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

function renderGroup(group: ConversationGroup | undefined, doc: UserConversation | null, guid: string, conversationId: string, withTags: boolean) {
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
  doc: UserConversation,
  peer: { user?: PeerUserDoc | null; group?: ConversationGroup },
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
  doc: AppConversation,
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
