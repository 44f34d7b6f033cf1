import { z } from 'zod';

export const userCreatedV1 = z.object({
  uid: z.string(),
  name: z.string(),
  avatar: z.string().optional(),
  link: z.string().optional(),
  role: z.string(),
  statusMessage: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()),
  createdAt: z.number().int(),
  /** Set when the user came from a data import: history, so no webhook or notification reacts to it. */
  imported: z.literal(true).optional(),
  /** An imported user's last activity as the caller gave it. */
  lastActiveAt: z.number().int().optional(),
});

/** The token itself never leaves the users service: the event carries only its fingerprint. */
export const authTokenCreatedV1 = z.object({
  uid: z.string(),
  tokenId: z.string(),
  platform: z.string().optional(),
  deviceId: z.string().optional(),
  /** The token's last four characters, so lists can show a recognisable masked token. */
  tokenHint: z.string().optional(),
  createdAt: z.number().int(),
});

/** Profile fields a user may change; `removed` lists the optional ones cleared by the update. */
export const userUpdatedV1 = z.object({
  uid: z.string(),
  changes: z.object({
    name: z.string().optional(),
    avatar: z.string().optional(),
    link: z.string().optional(),
    role: z.string().optional(),
    statusMessage: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    tags: z.array(z.string()).optional(),
  }),
  removed: z.array(z.enum(['avatar', 'link', 'statusMessage', 'metadata', 'tags'])),
  updatedAt: z.number().int(),
});

export const userDeactivatedV1 = z.object({ uid: z.string(), deactivatedAt: z.number().int() });
export const userReactivatedV1 = z.object({ uid: z.string(), reactivatedAt: z.number().int() });
/**
 * `permanent: false` is CometChat's soft delete (the user is gone from the API but their messages stay);
 * `permanent: true` also erases the user's messages and conversations wherever they are projected.
 */
export const userDeletedV1 = z.object({ uid: z.string(), permanent: z.boolean(), deletedAt: z.number().int() });

/** `uid` blocked (or unblocked) each of `blockedUids`; only the uids whose state changed are listed. */
export const usersBlockedV1 = z.object({ uid: z.string(), blockedUids: z.array(z.string()).min(1), blockedAt: z.number().int() });
export const usersUnblockedV1 = z.object({ uid: z.string(), unblockedUids: z.array(z.string()).min(1), unblockedAt: z.number().int() });

/** Device details a client attached to one of a user's tokens; `appInfo` is the client's JSON object. */
export const authTokenUpdatedV1 = z.object({
  uid: z.string(),
  tokenId: z.string(),
  platform: z.string().optional(),
  userAgent: z.string().optional(),
  appInfo: z.record(z.string(), z.unknown()).optional(),
  updatedAt: z.number().int(),
});
/** Revoked tokens stop authenticating at once; `tokenIds` are fingerprints, never tokens. */
export const authTokensRevokedV1 = z.object({
  uid: z.string(),
  tokenIds: z.array(z.string()).min(1),
  reason: z.enum(['deleted', 'flushed', 'limit', 'userDeleted']),
  revokedAt: z.number().int(),
});

/** Friendship is mutual: `uid` and each of `friendUids` are now friends of each other. */
export const friendsAddedV1 = z.object({ uid: z.string(), friendUids: z.array(z.string()).min(1), addedAt: z.number().int() });
/** Ends the mutual friendship between `uid` and each of `friendUids`. */
export const friendsRemovedV1 = z.object({ uid: z.string(), friendUids: z.array(z.string()).min(1), removedAt: z.number().int() });

/** Roles live in one stream per app (`roles:<appId>`); `metadata` and `settings` are the client's JSON. */
export const roleCreatedV1 = z.object({
  role: z.string(),
  name: z.string(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.number().int(),
});
export const roleUpdatedV1 = z.object({
  role: z.string(),
  changes: z.object({
    name: z.string().optional(),
    description: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
  removed: z.array(z.enum(['description', 'metadata', 'settings'])),
  updatedAt: z.number().int(),
});
export const roleDeletedV1 = z.object({ role: z.string(), deletedAt: z.number().int() });
/** RBAC: `permissions` maps a permission id (`sendMessage`, `listUsers.mode`, …) to its new value. */
export const rolePermissionsSetV1 = z.object({
  role: z.string(),
  permissions: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  updatedAt: z.number().int(),
});
/** The listed permission ids are back to their default values. */
export const rolePermissionsResetV1 = z.object({ role: z.string(), permissionIds: z.array(z.string()).min(1), updatedAt: z.number().int() });
/** Feature keys (`u.listUsers`, …) users of `role` may no longer (or again) use. */
export const roleFeaturesRestrictedV1 = z.object({ role: z.string(), features: z.array(z.string()).min(1), restrictedAt: z.number().int() });
export const roleFeaturesAllowedV1 = z.object({ role: z.string(), features: z.array(z.string()).min(1), allowedAt: z.number().int() });

/** The events that change a user's profile or standing: what every service's copy of users follows. */
export const userLifecycleEventTypes = ['UserCreated', 'UserUpdated', 'UserDeactivated', 'UserReactivated', 'UserDeleted'] as const;
/** A user's auth tokens (fingerprints only). */
export const authTokenEventTypes = ['AuthTokenCreated', 'AuthTokenUpdated', 'AuthTokensRevoked'] as const;
/** Mutual friendships, written from either friend's stream. */
export const friendEventTypes = ['FriendsAdded', 'FriendsRemoved'] as const;
/** Whom a user has blocked. */
export const blockEventTypes = ['UsersBlocked', 'UsersUnblocked'] as const;
/** An app's roles: their profile, permissions and restricted features (stream `roles:<appId>`). */
export const roleEventTypes = [
  'RoleCreated',
  'RoleUpdated',
  'RoleDeleted',
  'RolePermissionsSet',
  'RolePermissionsReset',
  'RoleFeaturesRestricted',
  'RoleFeaturesAllowed',
] as const;

export const userEventSchemas = {
  UserCreated: { 1: userCreatedV1 },
  UserUpdated: { 1: userUpdatedV1 },
  UserDeactivated: { 1: userDeactivatedV1 },
  UserReactivated: { 1: userReactivatedV1 },
  UserDeleted: { 1: userDeletedV1 },
  AuthTokenCreated: { 1: authTokenCreatedV1 },
  UsersBlocked: { 1: usersBlockedV1 },
  UsersUnblocked: { 1: usersUnblockedV1 },
  AuthTokenUpdated: { 1: authTokenUpdatedV1 },
  AuthTokensRevoked: { 1: authTokensRevokedV1 },
  FriendsAdded: { 1: friendsAddedV1 },
  FriendsRemoved: { 1: friendsRemovedV1 },
  RoleCreated: { 1: roleCreatedV1 },
  RoleUpdated: { 1: roleUpdatedV1 },
  RoleDeleted: { 1: roleDeletedV1 },
  RolePermissionsSet: { 1: rolePermissionsSetV1 },
  RolePermissionsReset: { 1: rolePermissionsResetV1 },
  RoleFeaturesRestricted: { 1: roleFeaturesRestrictedV1 },
  RoleFeaturesAllowed: { 1: roleFeaturesAllowedV1 },
} as const;

export type UserCreated = z.infer<typeof userCreatedV1>;
export type UserUpdated = z.infer<typeof userUpdatedV1>;
export type UserDeactivated = z.infer<typeof userDeactivatedV1>;
export type UserReactivated = z.infer<typeof userReactivatedV1>;
export type UserDeleted = z.infer<typeof userDeletedV1>;
export type AuthTokenCreated = z.infer<typeof authTokenCreatedV1>;
export type UsersBlocked = z.infer<typeof usersBlockedV1>;
export type UsersUnblocked = z.infer<typeof usersUnblockedV1>;
export type AuthTokenUpdated = z.infer<typeof authTokenUpdatedV1>;
export type AuthTokensRevoked = z.infer<typeof authTokensRevokedV1>;
export type FriendsAdded = z.infer<typeof friendsAddedV1>;
export type FriendsRemoved = z.infer<typeof friendsRemovedV1>;
export type RoleCreated = z.infer<typeof roleCreatedV1>;
export type RoleUpdated = z.infer<typeof roleUpdatedV1>;
export type RoleDeleted = z.infer<typeof roleDeletedV1>;
export type RolePermissionsSet = z.infer<typeof rolePermissionsSetV1>;
export type RolePermissionsReset = z.infer<typeof rolePermissionsResetV1>;
export type RoleFeaturesRestricted = z.infer<typeof roleFeaturesRestrictedV1>;
export type RoleFeaturesAllowed = z.infer<typeof roleFeaturesAllowedV1>;

/** The public profile every service that shows a user copies from `UserCreated`, absent fields omitted. */
export interface UserProfileFields {
  uid: string;
  name: string;
  avatar?: string;
  link?: string;
  role: string;
  /** Always copied from `UserCreated`; optional so copies made before tags were kept still read. */
  tags?: string[];
  createdAt: number;
  /** When the profile last changed (absent until the first `UserUpdated`). */
  updatedAt?: number;
}

export function userProfileFields(user: UserCreated): UserProfileFields {
  return {
    uid: user.uid,
    name: user.name,
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    role: user.role,
    tags: user.tags,
    createdAt: user.createdAt,
  };
}

/**
 * A copy of a user's public profile after a `UserUpdated`: the one applier every service that copies
 * profiles uses, so the copies cannot drift. Fields outside the public profile (the users service's
 * status message, metadata, sort keys) are left to their owner.
 */
export function applyUserUpdate<Profile extends UserProfileFields>(profile: Profile, update: UserUpdated): Profile {
  const { changes } = update;
  const next: Profile = { ...profile, updatedAt: update.updatedAt };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.avatar !== undefined) next.avatar = changes.avatar;
  if (changes.link !== undefined) next.link = changes.link;
  if (changes.role !== undefined) next.role = changes.role;
  if (changes.tags !== undefined) next.tags = changes.tags;
  for (const field of update.removed) {
    if (field === 'avatar') delete next.avatar;
    if (field === 'link') delete next.link;
    if (field === 'tags') next.tags = [];
  }
  return next;
}
