export interface StoredReaction {
  /** The id of the event that added it: unique, and the same on every replay. */
  id: string;
  reaction: string;
  uid: string;
  reactedAt: number;
}

/**
 * A message as the API lists it. `data` is the client's JSON as text (ADR 0002); the fields that
 * filters query are kept beside it as plain fields.
 */
export interface MessageDoc {
  appId: string;
  id: string;
  /** The id as a number, for range queries and ordering. */
  seq: number;
  conversationId: string;
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
  category: string;
  type: string;
  data: string;
  tags: string[];
  muid?: string;
  parentId?: string;
  quotedMessageId?: string;
  mentionedUids: string[];
  hasMentions: boolean;
  /** Lower-cased text, for `searchKey`. */
  searchText: string;
  hasAttachments: boolean;
  hasLinks: boolean;
  isReply: boolean;
  sentAt: number;
  updatedAt: number;
  editedAt?: number;
  editedBy?: string;
  deletedAt?: number;
  deletedBy?: string;
  isDeleted: boolean;
  replyCount: number;
  reactions: StoredReaction[];
  hasReactions: boolean;
  /** An imported message's delivery and read times (the caller's). */
  deliveredAt?: number;
  readAt?: number;
  /** Set while the message is pinned in its conversation. */
  pinnedAt?: number;
  pinnedBy?: string;
}
