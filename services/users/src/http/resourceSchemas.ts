import { z } from 'zod';

/*
 * The resources this service answers with, as its views render them (app/views.ts and the use cases):
 * the response side of the OpenAPI description (openapi.ts). Loose objects: the fields a view always
 * writes are required, the optional ones typed, anything later added allowed.
 */

const metadata = z.record(z.string(), z.unknown());

/** `renderUser`: a user as every user operation shows it. */
export const userResource = z.looseObject({
  uid: z.string(),
  name: z.string(),
  link: z.string().optional(),
  avatar: z.string().optional(),
  metadata: metadata.optional(),
  status: z.string(),
  role: z.string(),
  statusMessage: z.string().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  deactivatedAt: z.number().int().optional(),
  lastActiveAt: z.number().int().optional(),
  tags: z.array(z.string()).optional(),
  /** Only on a create with `withAuthToken`. */
  authToken: z.string().optional(),
});

/** A friend or a blocked user: the user, their one-on-one conversation id, and when they were blocked. */
export const relatedUserResource = userResource.extend({
  conversationId: z.string(),
  blockedByMe: z.boolean().optional(),
  blockedByMeAt: z.number().int().optional(),
  blockedAt: z.number().int().optional(),
});

/** `renderToken`: the token in full when it was just created or named, masked in lists. */
export const authTokenResource = z.looseObject({
  uid: z.string(),
  authToken: z.string(),
  tokenId: z.string(),
  platform: z.string().optional(),
  deviceId: z.string().optional(),
  userAgent: z.string().optional(),
  appInfo: z.string().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int().optional(),
});

/** `renderRole`. */
export const roleResource = z.looseObject({
  role: z.string(),
  name: z.string(),
  description: z.string().optional(),
  metadata: z.unknown().optional(),
  settings: z.unknown().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int().optional(),
});

const permissionValue = z.union([z.string(), z.array(z.string())]);

/** One entry of a role's permission list: the catalogue's permission and the role's value. */
export const rolePermissionResource = z.looseObject({
  id: z.string(),
  type: z.literal('role'),
  title: z.string(),
  dataType: z.string(),
  availableValues: z.unknown(),
  defaultValue: z.unknown(),
  value: z.unknown(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});

/** A role's permissions after a change: every permission id and its effective value. */
export const effectivePermissions = z.looseObject({ permissions: z.record(z.string(), permissionValue) });

/** One restricted feature of a role. */
export const restrictedFeatureResource = z.looseObject({ title: z.string(), key: z.string(), path: z.string(), createdAt: z.number().int() });

export const deactivatedUids = z.object({ deactivatedUids: z.array(z.string()) });
export const nonDeactivatedUids = z.object({ nonDeactivatedUids: z.array(z.string()) });
