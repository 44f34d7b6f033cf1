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
});

/** The token itself never leaves the users service: the event carries only its fingerprint. */
export const authTokenCreatedV1 = z.object({
  uid: z.string(),
  tokenId: z.string(),
  platform: z.string().optional(),
  deviceId: z.string().optional(),
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

export const userEventSchemas = {
  UserCreated: { 1: userCreatedV1 },
  UserUpdated: { 1: userUpdatedV1 },
  UserDeactivated: { 1: userDeactivatedV1 },
  UserReactivated: { 1: userReactivatedV1 },
  UserDeleted: { 1: userDeletedV1 },
  AuthTokenCreated: { 1: authTokenCreatedV1 },
  UsersBlocked: { 1: usersBlockedV1 },
  UsersUnblocked: { 1: usersUnblockedV1 },
} as const;

export type UserCreated = z.infer<typeof userCreatedV1>;
export type UserUpdated = z.infer<typeof userUpdatedV1>;
export type UserDeactivated = z.infer<typeof userDeactivatedV1>;
export type UserReactivated = z.infer<typeof userReactivatedV1>;
export type UserDeleted = z.infer<typeof userDeletedV1>;
export type AuthTokenCreated = z.infer<typeof authTokenCreatedV1>;
export type UsersBlocked = z.infer<typeof usersBlockedV1>;
export type UsersUnblocked = z.infer<typeof usersUnblockedV1>;

/** The public profile every service that shows a user copies from `UserCreated`, absent fields omitted. */
export interface UserProfileFields {
  uid: string;
  name: string;
  avatar?: string;
  link?: string;
  role: string;
  createdAt: number;
}

export function userProfileFields(user: UserCreated): UserProfileFields {
  return {
    uid: user.uid,
    name: user.name,
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    role: user.role,
    createdAt: user.createdAt,
  };
}
