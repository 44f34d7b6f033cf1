import { groupSummaryOf } from './events/groups.js';
import type { GroupSummary } from './events/groups.js';
import type { UserEntity } from './events/messages.js';
import type { UserProfileFields } from './events/users.js';
import type { MessageDoc, StoredReaction } from './messageDocument.js';

/** What a group's entity shows of it (the known-groups read model keeps these and more). */
export interface GroupFacts extends GroupSummary {
  membersCount: number;
  createdAt: number;
  updatedAt: number;
  updatedBy?: string;
}

/** CometChat's user entity inside a message (presence is not tracked here: always `offline`). */
export function userEntityOf(user: UserProfileFields, conversationId?: string): UserEntity {
  return {
    uid: user.uid,
    name: user.name,
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    status: 'offline',
    role: user.role,
    createdAt: user.createdAt,
    ...(conversationId !== undefined ? { conversationId } : {}),
  };
}

/** The app acting without a user: CometChat names it `app_system`. */
export const APP_SYSTEM = 'app_system';

export function appSystemEntity(): UserEntity {
  return { uid: APP_SYSTEM, name: APP_SYSTEM, status: 'offline', role: 'default', createdAt: 0 };
}

export function groupEntityOf(group: GroupFacts): Record<string, unknown> {
  return {
    ...groupSummaryOf(group),
    membersCount: group.membersCount,
    createdAt: group.createdAt,
    updatedAt: group.updatedAt,
    ...(group.updatedBy !== undefined ? { updatedBy: group.updatedBy } : {}),
    conversationId: `group_${group.guid}`,
  };
}

/** `data.reactions`: one entry per reaction in first-use order, with `reactedByMe` for the viewer. */
export function reactionSummary(reactions: readonly StoredReaction[], viewer?: string): Record<string, unknown>[] {
  const summary = new Map<string, { count: number; mine: boolean }>();
  for (const r of reactions) {
    const entry = summary.get(r.reaction) ?? { count: 0, mine: false };
    entry.count += 1;
    if (r.uid === viewer) entry.mine = true;
    summary.set(r.reaction, entry);
  }
  return [...summary].map(([reaction, { count, mine }]) => ({ reaction, count, ...(mine ? { reactedByMe: true } : {}) }));
}

/** The SDKs' `mentionedUsers`: the user entities snapshotted in `data.mentions`. */
function mentionedUsersOf(data: Record<string, unknown>): unknown[] {
  const mentions = data['mentions'];
  return typeof mentions === 'object' && mentions !== null ? Object.values(mentions) : [];
}

/** A stored message in CometChat's shape, as `viewer` (the onBehalfOf user, if any) sees it. */
export function messageView(doc: MessageDoc, viewer?: string): Record<string, unknown> {
  const data = JSON.parse(doc.data) as Record<string, unknown>;
  if (doc.reactions.length > 0) data['reactions'] = reactionSummary(doc.reactions, viewer);
  return {
    id: doc.id,
    conversationId: doc.conversationId,
    sender: doc.sender,
    receiverType: doc.receiverType,
    receiver: doc.receiver,
    category: doc.category,
    type: doc.type,
    data,
    ...(doc.tags.length > 0 ? { tags: doc.tags } : {}),
    ...(doc.muid !== undefined ? { muid: doc.muid } : {}),
    ...(doc.parentId !== undefined ? { parentId: doc.parentId } : {}),
    ...(doc.quotedMessageId !== undefined ? { quotedMessageId: doc.quotedMessageId } : {}),
    ...(doc.mentionedUids.length > 0 ? { mentionedUids: doc.mentionedUids, mentionedUsers: mentionedUsersOf(data) } : {}),
    ...(doc.replyCount > 0 ? { replyCount: doc.replyCount } : {}),
    sentAt: doc.sentAt,
    ...(doc.deliveredAt !== undefined ? { deliveredAt: doc.deliveredAt } : {}),
    ...(doc.readAt !== undefined ? { readAt: doc.readAt } : {}),
    ...(doc.editedAt !== undefined ? { editedAt: doc.editedAt } : {}),
    ...(doc.editedBy !== undefined ? { editedBy: doc.editedBy } : {}),
    ...(doc.deletedAt !== undefined ? { deletedAt: doc.deletedAt } : {}),
    ...(doc.deletedBy !== undefined ? { deletedBy: doc.deletedBy } : {}),
    ...(doc.pinnedAt !== undefined ? { pinnedAt: doc.pinnedAt, pinnedBy: doc.pinnedBy } : {}),
    updatedAt: doc.updatedAt,
  };
}
