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

export const userEventSchemas = {
  UserCreated: { 1: userCreatedV1 },
  AuthTokenCreated: { 1: authTokenCreatedV1 },
} as const;

export type UserCreated = z.infer<typeof userCreatedV1>;
export type AuthTokenCreated = z.infer<typeof authTokenCreatedV1>;

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
