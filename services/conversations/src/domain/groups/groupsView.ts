import { groupConversationId } from '@chat/contracts';
import type { GroupScope, GroupType } from '@chat/contracts';
import type { PeerUserDoc } from '../conversationView.js';

// What the views read of the group read models' documents (which keep these fields and more).
export interface GroupFacts {
  guid: string;
  name: string;
  type: GroupType;
  owner: string;
  icon?: string;
  description?: string;
  /** JSON text: metadata keys are the client's (ADR 0002). */
  metadata?: string;
  tags: string[];
  createdAt: number;
  updatedAt: number;
  membersCount: number;
}

export interface MembershipFacts {
  uid: string;
  scope: GroupScope;
  joinedAt: number;
}

export interface BanFacts {
  uid: string;
  bannedAt: number;
}

/** A group as CometChat shows it; `hasJoined`, `scope` and `joinedAt` only for an acting user. */
export interface GroupResource {
  guid: string;
  name: string;
  description?: string;
  icon?: string;
  type: GroupType;
  metadata?: Record<string, unknown>;
  owner?: string;
  scope?: GroupScope;
  membersCount: number;
  joinedAt?: number;
  conversationId: string;
  hasJoined?: boolean;
  createdAt: number;
  updatedAt: number;
  tags?: string[];
}

export interface Perspective {
  /** The acting user (onBehalfOf), if any. */
  uid?: string;
  membership: MembershipFacts | null;
}

export function renderGroup(doc: GroupFacts, perspective: Perspective, withTags = true): GroupResource {
  const member = perspective.membership;
  return {
    guid: doc.guid,
    name: doc.name,
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    ...(doc.icon !== undefined ? { icon: doc.icon } : {}),
    type: doc.type,
    ...(doc.metadata !== undefined ? { metadata: JSON.parse(doc.metadata) as Record<string, unknown> } : {}),
    ...(doc.owner ? { owner: doc.owner } : {}),
    ...(member ? { scope: member.scope } : {}),
    membersCount: doc.membersCount,
    ...(member ? { joinedAt: member.joinedAt } : {}),
    conversationId: groupConversationId(doc.guid),
    ...(perspective.uid !== undefined ? { hasJoined: member !== null } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(withTags ? { tags: doc.tags } : {}),
  };
}

export interface UserSummary {
  uid: string;
  name?: string;
  avatar?: string;
  link?: string;
  status?: string;
  role?: string;
  createdAt?: number;
  updatedAt?: number;
}

/** The public profile of a user as member and ban lists show it (just the uid if it is unknown here). */
export function userSummary(uid: string, user: PeerUserDoc | undefined): UserSummary {
  if (!user) return { uid };
  return {
    uid,
    name: user.name,
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    status: user.status,
    role: user.role,
    createdAt: user.createdAt,
    ...(user.updatedAt !== undefined ? { updatedAt: user.updatedAt } : {}),
  };
}

export type MemberResource = UserSummary & { scope: GroupScope; joinedAt: number };

export function renderMember(member: MembershipFacts, user: PeerUserDoc | undefined): MemberResource {
  return { ...userSummary(member.uid, user), scope: member.scope, joinedAt: member.joinedAt };
}

export type BannedUserResource = UserSummary & { bannedAt: number };

export function renderBannedUser(ban: BanFacts, user: PeerUserDoc | undefined): BannedUserResource {
  return { ...userSummary(ban.uid, user), bannedAt: ban.bannedAt };
}
