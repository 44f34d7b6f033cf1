import { z } from 'zod';

/**
 * Group events, published by the conversations service on `chat.conversations.events` with stream id
 * `group:<appId>:<guid>`. The messages service projects them to authorise sends and turns membership
 * changes into `category: action` messages; the conversation read model follows membership.
 */
export const groupTypes = ['public', 'private', 'password'] as const;
/** Highest first: the order that decides who may act on whom. */
export const groupScopes = ['admin', 'moderator', 'participant'] as const;

const groupProfileSchema = z.object({
  guid: z.string(),
  name: z.string(),
  type: z.enum(groupTypes),
  owner: z.string(),
  icon: z.string().optional(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()),
});

/**
 * `owner` is empty when the app created the group without `owner` and without `onBehalfOf`: the group
 * then has no owning user (and no member) until someone is added.
 * `passwordHash` is a salted scrypt hash (`scrypt$<salt>$<hash>`), never the password: the event store is
 * the source of truth, so the hash has to live in an event, and downstream readers cannot log in with it.
 */
export const groupCreatedV1 = groupProfileSchema.extend({
  passwordHash: z.string().optional(),
  createdBy: z.string().optional(),
  createdAt: z.number().int(),
  imported: z.literal(true).optional(),
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

/**
 * `membersCount` (optional on every membership event) is the group's member count right after the
 * event, so a reader can show it without counting, in any replay order of one stream.
 */
const membersCount = z.number().int().nonnegative().optional();

/**
 * Set on the events of a data import: history, so no action message, webhook or notification
 * reacts to it.
 */
const imported = z.literal(true).optional();

/** A user joined by themselves (public group, or password group with the right password). */
export const groupMemberJoinedV1 = z.object({
  guid: z.string(),
  uid: z.string(),
  scope: z.enum(groupScopes),
  joinedAt: z.number().int(),
  membersCount,
});
/** Members added by someone else (`addedBy` absent: the app itself), including the owner at creation. */
export const groupMembersAddedV1 = z.object({
  guid: z.string(),
  members: z.array(groupMember).min(1),
  addedBy: z.string().optional(),
  addedAt: z.number().int(),
  membersCount,
  imported,
});
export const groupMemberLeftV1 = z.object({ guid: z.string(), uid: z.string(), leftAt: z.number().int(), membersCount });
export const groupMemberKickedV1 = z.object({
  guid: z.string(),
  uid: z.string(),
  kickedBy: z.string().optional(),
  kickedAt: z.number().int(),
  membersCount,
});
export const groupMemberScopeChangedV1 = z.object({
  guid: z.string(),
  uid: z.string(),
  scope: z.enum(groupScopes),
  previousScope: z.enum(groupScopes),
  changedBy: z.string().optional(),
  changedAt: z.number().int(),
});
/** A ban also removes membership: a banned user is no longer a member (`wasMember` says whether it was one). */
export const groupMemberBannedV1 = z.object({
  guid: z.string(),
  uid: z.string(),
  bannedBy: z.string().optional(),
  bannedAt: z.number().int(),
  wasMember: z.boolean().optional(),
  membersCount,
  imported,
});
export const groupMemberUnbannedV1 = z.object({ guid: z.string(), uid: z.string(), unbannedBy: z.string().optional(), unbannedAt: z.number().int() });

/**
 * The permissions a group scope can be given (CometChat's group scope permissions). `allow`/`deny`
 * switches, and list-valued refinements (`stringArray`) whose values come from `availableValues`.
 */
export const groupScopePermissionCatalog = {
  sendMessage: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies sending messages' },
  sendThreadedMessage: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies sending threaded replies' },
  editMessage: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies editing own messages' },
  addReaction: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies reacting to messages' },
  listReactions: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies listing reactions' },
  'listReactions.allowedScopes': { dataType: 'stringArray', availableValues: [...groupScopes], defaultValue: [], title: 'Restricts listing reactions to members of the given scopes' },
  listMembers: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies listing the group members' },
  'listMembers.allowedScopes': { dataType: 'stringArray', availableValues: [...groupScopes], defaultValue: [], title: 'Allows member to list the members with specified scope' },
  initiateCall: { dataType: 'string', availableValues: ['allow', 'deny'], defaultValue: 'allow', title: 'Allows/Denies starting a group call' },
  'initiateCall.allowedScopes': { dataType: 'stringArray', availableValues: [...groupScopes], defaultValue: [], title: 'Restricts calls to members of the given scopes' },
  'initiateCall.allowedType': { dataType: 'stringArray', availableValues: ['audio', 'video'], defaultValue: [], title: 'Allows members to initiate call with the specified types' },
} as const satisfies Record<string, { dataType: 'string' | 'stringArray'; availableValues: readonly string[]; defaultValue: string | readonly string[]; title: string }>;

export type GroupScopePermissionId = keyof typeof groupScopePermissionCatalog;
export const groupScopePermissionIds = Object.keys(groupScopePermissionCatalog) as GroupScopePermissionId[];

/**
 * The permissions of one scope in one group changed: `permissions` holds the values set by this change
 * (strings for `string` permissions, string arrays for `stringArray` ones); `removed` the ids reset to
 * their default. Absent ids keep their previous value.
 */
export const groupScopePermissionsChangedV1 = z.object({
  guid: z.string(),
  scope: z.enum(groupScopes),
  permissions: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  removed: z.array(z.string()),
  changedAt: z.number().int(),
});

/** A group's own life: created, changed, deleted. */
export const groupProfileEventTypes = ['GroupCreated', 'GroupUpdated', 'GroupDeleted'] as const;
/** Events that change who is a member of a group, or with which scope. */
export const groupMembershipEventTypes = [
  'GroupMemberJoined',
  'GroupMembersAdded',
  'GroupMemberLeft',
  'GroupMemberKicked',
  'GroupMemberScopeChanged',
  'GroupMemberBanned',
] as const;
/** Who is banned from a group. */
export const groupBanEventTypes = ['GroupMemberBanned', 'GroupMemberUnbanned'] as const;
/** A group's profile, membership and ban events: what a service following groups projects. */
export const groupEventTypes = [...groupProfileEventTypes, ...groupMembershipEventTypes, 'GroupMemberUnbanned'] as const;
/** What sets a group's scope permissions: its creation and deletion reset them to the defaults. */
export const groupScopePermissionEventTypes = ['GroupCreated', 'GroupDeleted', 'GroupScopePermissionsChanged'] as const;
/** Everything on a group's stream: the above and its scope permissions. */
export const groupStreamEventTypes = [...groupEventTypes, 'GroupScopePermissionsChanged'] as const;

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
  GroupScopePermissionsChanged: { 1: groupScopePermissionsChangedV1 },
} as const;

export type GroupType = (typeof groupTypes)[number];
export type GroupScope = (typeof groupScopes)[number];
/** A group's own fields, as its creation carries them: the one shape every service's group records start from. */
export type GroupProfile = z.infer<typeof groupProfileSchema>;
/** What other services keep of a group to show it: its profile but its metadata and tags. */
export type GroupSummary = Omit<GroupProfile, 'metadata' | 'tags'>;

/** A group's summary from its profile (or its creation event), leaving out what it does not have. */
export function groupSummaryOf(group: GroupSummary): GroupSummary {
  return {
    guid: group.guid,
    name: group.name,
    type: group.type,
    owner: group.owner,
    ...(group.icon !== undefined ? { icon: group.icon } : {}),
    ...(group.description !== undefined ? { description: group.description } : {}),
  };
}
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
export type GroupScopePermissionsChanged = z.infer<typeof groupScopePermissionsChangedV1>;
