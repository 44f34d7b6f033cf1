import { z } from 'zod';

/**
 * Group events, published by the conversations service on `chat.conversations.events` with stream id
 * `group:<appId>:<guid>`. The messages service projects them to authorise sends and turns membership
 * changes into `category: action` messages; the conversation read model follows membership.
 */
export const groupTypes = ['public', 'private', 'password'] as const;
export const groupScopes = ['admin', 'moderator', 'participant'] as const;

const groupProfile = {
  guid: z.string(),
  name: z.string(),
  type: z.enum(groupTypes),
  owner: z.string(),
  icon: z.string().optional(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()),
};

/**
 * `passwordHash` is a salted scrypt hash (`scrypt$<salt>$<hash>`), never the password: the event store is
 * the source of truth, so the hash has to live in an event, and downstream readers cannot log in with it.
 */
export const groupCreatedV1 = z.object({
  ...groupProfile,
  passwordHash: z.string().optional(),
  createdBy: z.string().optional(),
  createdAt: z.number().int(),
});

export const groupUpdatedV1 = z.object({
  guid: z.string(),
  changes: z.object({
    name: z.string().optional(),
    type: z.enum(groupTypes).optional(),
    owner: z.string().optional(),
    icon: z.string().optional(),
    description: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    tags: z.array(z.string()).optional(),
    passwordHash: z.string().optional(),
  }),
  removed: z.array(z.enum(['icon', 'description', 'metadata', 'tags', 'passwordHash'])),
  updatedBy: z.string().optional(),
  updatedAt: z.number().int(),
});

export const groupDeletedV1 = z.object({ guid: z.string(), deletedBy: z.string().optional(), deletedAt: z.number().int() });

const groupMember = z.object({ uid: z.string(), scope: z.enum(groupScopes) });

/** A user joined by themselves (public group, or password group with the right password). */
export const groupMemberJoinedV1 = z.object({ guid: z.string(), uid: z.string(), scope: z.enum(groupScopes), joinedAt: z.number().int() });
/** Members added by someone else (`addedBy` absent: the app itself), including the owner at creation. */
export const groupMembersAddedV1 = z.object({
  guid: z.string(),
  members: z.array(groupMember).min(1),
  addedBy: z.string().optional(),
  addedAt: z.number().int(),
});
export const groupMemberLeftV1 = z.object({ guid: z.string(), uid: z.string(), leftAt: z.number().int() });
export const groupMemberKickedV1 = z.object({ guid: z.string(), uid: z.string(), kickedBy: z.string().optional(), kickedAt: z.number().int() });
export const groupMemberScopeChangedV1 = z.object({
  guid: z.string(),
  uid: z.string(),
  scope: z.enum(groupScopes),
  previousScope: z.enum(groupScopes),
  changedBy: z.string().optional(),
  changedAt: z.number().int(),
});
/** A ban also removes membership: a banned user is no longer a member. */
export const groupMemberBannedV1 = z.object({ guid: z.string(), uid: z.string(), bannedBy: z.string().optional(), bannedAt: z.number().int() });
export const groupMemberUnbannedV1 = z.object({ guid: z.string(), uid: z.string(), unbannedBy: z.string().optional(), unbannedAt: z.number().int() });

export const groupEventSchemas = {
  GroupCreated: { 1: groupCreatedV1 },
  GroupUpdated: { 1: groupUpdatedV1 },
  GroupDeleted: { 1: groupDeletedV1 },
  GroupMemberJoined: { 1: groupMemberJoinedV1 },
  GroupMembersAdded: { 1: groupMembersAddedV1 },
  GroupMemberLeft: { 1: groupMemberLeftV1 },
  GroupMemberKicked: { 1: groupMemberKickedV1 },
  GroupMemberScopeChanged: { 1: groupMemberScopeChangedV1 },
  GroupMemberBanned: { 1: groupMemberBannedV1 },
  GroupMemberUnbanned: { 1: groupMemberUnbannedV1 },
} as const;

export type GroupType = (typeof groupTypes)[number];
export type GroupScope = (typeof groupScopes)[number];
export type GroupCreated = z.infer<typeof groupCreatedV1>;
export type GroupUpdated = z.infer<typeof groupUpdatedV1>;
export type GroupDeleted = z.infer<typeof groupDeletedV1>;
export type GroupMemberJoined = z.infer<typeof groupMemberJoinedV1>;
export type GroupMembersAdded = z.infer<typeof groupMembersAddedV1>;
export type GroupMemberLeft = z.infer<typeof groupMemberLeftV1>;
export type GroupMemberKicked = z.infer<typeof groupMemberKickedV1>;
export type GroupMemberScopeChanged = z.infer<typeof groupMemberScopeChangedV1>;
export type GroupMemberBanned = z.infer<typeof groupMemberBannedV1>;
export type GroupMemberUnbanned = z.infer<typeof groupMemberUnbannedV1>;
