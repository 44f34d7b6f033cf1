import { byScalarFields, escapeRegex } from '@chat/mongo';
import type { Stored } from '@chat/mongo';
import type { Filter } from 'mongodb';
import type { MessageDoc } from '../projections/messages.js';

/** A user's marks, one per conversation that has any; a conversation without a mark is unseen from its start. */
export interface UnseenBy {
  uid: string;
  marks: readonly { conversationId: string; upTo: number }[];
}

export type MessageCursor = { field: 'seq' | 'sentAt'; direction: 'before' | 'after'; value: number };

/** A message list query; every condition is optional except the app. */
export interface MessageQuery {
  appId: string;
  conversationId?: string;
  /** Only messages this user can see: their one-on-one messages and their groups' messages. */
  visibleTo?: { uid: string; guids: readonly string[] };
  parentId?: string;
  sender?: string;
  receiver?: string;
  receiverType?: 'user' | 'group';
  categories?: readonly string[];
  types?: readonly string[];
  tags?: readonly string[];
  hideDeleted?: boolean;
  onlyDeleted?: boolean;
  hideReplies?: boolean;
  hasReactions?: boolean;
  hasMentions?: boolean;
  mentionedUid?: string;
  /** Messages that mention any of these users. */
  mentioningAny?: readonly string[];
  /** Messages `uid` has not read (or received): sent by others, above the user's mark in each conversation. */
  unseenBy?: UnseenBy;
  hasAttachments?: boolean;
  attachmentTypes?: readonly string[];
  hasLinks?: boolean;
  searchKey?: string;
  fromTimestamp?: number;
  toTimestamp?: number;
  excludeSenders?: readonly string[];
}

/** What `unread`/`undelivered` keep: others' live messages above the user's mark of their conversation. */
function unseenConditions(unseen: UnseenBy, conversationId: string | undefined): Filter<Stored<MessageDoc>>[] {
  const conditions: Filter<Stored<MessageDoc>>[] = [{ sender: { $ne: unseen.uid } }, { isDeleted: false }];
  const marks = unseen.marks.filter((mark) => mark.upTo > 0 && (conversationId === undefined || mark.conversationId === conversationId));
  if (conversationId !== undefined) {
    const upTo = marks[0]?.upTo ?? 0;
    if (upTo > 0) conditions.push({ seq: { $gt: upTo } });
  } else if (marks.length > 0) {
    conditions.push({ $nor: marks.map((mark) => ({ conversationId: mark.conversationId, seq: { $lte: mark.upTo } })) });
  }
  return conditions;
}

/** Message fields always written as strings (`MessageDoc`), each leading an index after `appId`. */
const MESSAGE_SCALARS = ['appId', 'conversationId', 'parentId', 'sender', 'receiver', 'receiverType'] as const;

/**
 * The filter, tagged with those of its top-level message fields it compares to a string: on FerretDB the
 * list then searches the app's indexes instead of decoding every app's messages (ADR 0076 addendum).
 */
export function withMessageScalars(filter: Record<string, unknown>): Record<string, unknown> {
  const compared = MESSAGE_SCALARS.filter((field) => typeof filter[field] === 'string');
  return compared.length > 0 ? { ...filter, ...byScalarFields(...compared) } : filter;
}

/** The store filter of a message list query, below or above the cursor when one is given. */
export function messageFilter(query: MessageQuery, cursor: MessageCursor | null): Filter<Stored<MessageDoc>> {
  const and: Filter<Stored<MessageDoc>>[] = [];
  const filter: Record<string, unknown> = { appId: query.appId };
  if (query.conversationId !== undefined) filter['conversationId'] = query.conversationId;
  if (query.parentId !== undefined) filter['parentId'] = query.parentId;
  if (query.sender !== undefined) filter['sender'] = query.sender;
  if (query.receiver !== undefined) filter['receiver'] = query.receiver;
  if (query.receiverType !== undefined) filter['receiverType'] = query.receiverType;
  if (query.categories?.length) filter['category'] = { $in: [...query.categories] };
  if (query.types?.length) filter['type'] = { $in: [...query.types] };
  if (query.tags?.length) filter['tags'] = { $in: [...query.tags] };
  if (query.hideDeleted) filter['isDeleted'] = false;
  if (query.onlyDeleted) filter['isDeleted'] = true;
  if (query.hideReplies) filter['isReply'] = false;
  if (query.hasReactions) filter['hasReactions'] = true;
  if (query.hasAttachments) filter['hasAttachments'] = true;
  if (query.attachmentTypes?.length) {
    filter['hasAttachments'] = true;
    and.push({ type: { $in: [...query.attachmentTypes] } });
  }
  if (query.hasLinks) filter['hasLinks'] = true;
  if (query.mentionedUid !== undefined) filter['mentionedUids'] = query.mentionedUid;
  else if (query.hasMentions) filter['hasMentions'] = true;
  if (query.mentioningAny?.length) and.push({ mentionedUids: { $in: [...query.mentioningAny] } });
  if (query.unseenBy) and.push(...unseenConditions(query.unseenBy, query.conversationId));
  if (query.searchKey) filter['searchText'] = { $regex: escapeRegex(query.searchKey.toLowerCase()) };
  if (query.excludeSenders?.length) and.push({ sender: { $nin: [...query.excludeSenders] } });
  const sentAt: Record<string, number> = {};
  if (query.fromTimestamp !== undefined) sentAt['$gte'] = query.fromTimestamp;
  if (query.toTimestamp !== undefined) sentAt['$lte'] = query.toTimestamp;
  if (Object.keys(sentAt).length > 0) and.push({ sentAt });
  if (cursor) and.push({ [cursor.field]: { [cursor.direction === 'before' ? '$lt' : '$gt']: cursor.value } });
  if (query.visibleTo) {
    const { uid, guids } = query.visibleTo;
    and.push({
      $or: [
        { receiverType: 'user', sender: uid },
        { receiverType: 'user', receiver: uid },
        ...(guids.length > 0 ? [{ receiverType: 'group' as const, receiver: { $in: [...guids] } }] : []),
      ],
    });
  }
  return withMessageScalars(and.length > 0 ? { ...filter, $and: and } : filter);
}
