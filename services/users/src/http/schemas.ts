import { UID_PATTERN } from '@chat/contracts';
import { pastEpochSeconds } from '@chat/http';
import { z } from 'zod';
import { cursorParameter } from '@chat/http';
import { featureSpec, permissionValueProblem } from '../domain/roles/catalog.js';

/** CometChat limits (constraints page): URLs 3000 chars, metadata 5 KB, 25 tags of 100 chars. */
const url = z.url({ protocol: /^https?$/ }).max(3000);
export const MAX_METADATA_BYTES = 5 * 1024;
const ID_RULE = 'must be 1 to 100 characters of a-z, 0-9, "-" and "_"';
/** How many uids one bulk, friends or block request may name. */
export const MAX_UIDS_PER_REQUEST = 100;

export const uidSchema = z
  .string()
  .transform((uid) => uid.toLowerCase())
  .pipe(z.string().regex(UID_PATTERN, ID_RULE));

export const roleIdSchema = z
  .string()
  .transform((role) => role.toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_-]{1,100}$/, ID_RULE));

const jsonObject = (limitBytes?: number) => {
  const base = z.record(z.string(), z.unknown());
  return limitBytes === undefined
    ? base
    : base.refine((value) => Buffer.byteLength(JSON.stringify(value)) <= limitBytes, `must be at most ${limitBytes / 1024} KB of JSON`);
};

const name = z.string().trim().min(1, 'must not be empty').max(100);
const tags = z.array(z.string().trim().min(1, 'must not be empty').max(100)).max(25, 'at most 25 tags');
const statusMessage = z.string().max(255);
const uidList = z.array(uidSchema).min(1, 'must name at least one uid').max(MAX_UIDS_PER_REQUEST);

/** A user's own fields, as create-user and data import take them. */
const userFields = z.object({
  uid: uidSchema,
  name,
  avatar: url.optional(),
  link: url.optional(),
  role: roleIdSchema.default('default'),
  statusMessage: statusMessage.optional(),
  metadata: jsonObject(MAX_METADATA_BYTES).optional(),
  tags: tags.default([]),
});

export const createUserSchema = userFields.extend({ withAuthToken: z.boolean().default(false) });

const removableProfileFields = ['avatar', 'link', 'statusMessage', 'metadata', 'tags'] as const;

export const updateUserSchema = z
  .object({
    name: name.optional(),
    avatar: url.optional(),
    link: url.optional(),
    role: roleIdSchema.optional(),
    statusMessage: statusMessage.optional(),
    metadata: jsonObject(MAX_METADATA_BYTES).optional(),
    tags: tags.optional(),
    unset: z.array(z.enum(removableProfileFields)).max(removableProfileFields.length).default([]),
  })
  .superRefine((body, ctx) => {
    for (const field of body.unset) {
      if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: ['unset'], message: `${field} cannot be set and unset at once` });
    }
  });

export const deleteUserSchema = z.object({ permanent: z.boolean().default(false) });
export const deactivateUsersSchema = z.object({ uidsToDeactivate: uidList });
export const reactivateUsersSchema = z.object({ uidsToActivate: uidList });

export const createAuthTokenSchema = z.object({
  force: z.boolean().optional(),
  platform: z.string().min(1).max(100).optional(),
  deviceId: z.string().min(1).max(255).optional(),
});

export const updateAuthTokenSchema = z
  .object({
    platform: z.string().min(1).max(100).optional(),
    userAgent: z.string().min(1).max(1000).optional(),
    appInfo: jsonObject(MAX_METADATA_BYTES).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'name at least one of platform, userAgent, appInfo');

export const addFriendsSchema = z.object({ accepted: uidList });
export const removeFriendsSchema = z.object({ friends: uidList });
export const blockedUidsSchema = z.object({ blockedUids: uidList });

export const pagingSchema = z.object({
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  cursor: cursorParameter,
});

/** Query booleans arrive as text; `z.coerce.boolean` would read "false" as true. */
const queryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1')
  .default(false);

/** `a,b` (CometChat's form style), repeated parameters, or `x[]=`: all become one list. */
const queryList = <T extends string>(item: z.ZodType<T, string>) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((part) => part.trim()).filter(Boolean))
    .pipe(z.array(item).min(1).max(25));

export const listUsersSchema = pagingSchema.extend({
  searchKey: z.string().trim().min(1).max(100).optional(),
  searchIn: queryList(z.enum(['name', 'uid'])).default(['name', 'uid']),
  status: z.enum(['available', 'offline']).optional(),
  count: queryBoolean,
  role: roleIdSchema.optional(),
  roles: queryList(roleIdSchema).optional(),
  withTags: queryBoolean,
  tags: queryList(z.string().min(1).max(100)).optional(),
  onlyDeactivated: queryBoolean,
  withDeactivated: queryBoolean,
});

export const listFriendsSchema = pagingSchema.extend({ searchKey: z.string().trim().min(1).max(100).optional() });

const roleFields = {
  name,
  description: z.string().max(255).optional(),
  metadata: jsonObject().optional(),
  settings: jsonObject().optional(),
};

export const createRoleSchema = z.object({ role: roleIdSchema, ...roleFields });

const removableRoleFields = ['description', 'metadata', 'settings'] as const;

export const updateRoleSchema = z
  .object({
    ...roleFields,
    name: name.optional(),
    unset: z.array(z.enum(removableRoleFields)).max(removableRoleFields.length).default([]),
  })
  .superRefine((body, ctx) => {
    for (const field of body.unset) {
      if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: ['unset'], message: `${field} cannot be set and unset at once` });
    }
  });

export const setPermissionsSchema = z.object({
  permissions: z
    .record(z.string(), z.unknown())
    .refine((value) => Object.keys(value).length > 0, 'must set at least one permission')
    .superRefine((value, ctx) => {
      for (const [id, permission] of Object.entries(value)) {
        const problem = permissionValueProblem(id, permission);
        if (problem) ctx.addIssue({ code: 'custom', path: [id], message: problem });
      }
    })
    .transform((value) => value as Record<string, string | string[]>),
});

const featureKey = z.string().refine((key) => featureSpec(key) !== undefined, 'is not a restrictable feature');

export const restrictFeaturesSchema = z.object({ featuresToRestrict: z.array(featureKey).min(1).max(100) });

export const allowFeaturesSchema = z
  .object({ featuresToAllow: z.array(featureKey).min(1).max(100).optional(), allowAll: z.boolean().optional() })
  .refine((body) => body.allowAll === true || body.featuresToAllow !== undefined, 'name featuresToAllow or set allowAll');

/**
 * One user of a data import (`POST /data_import/users`): the create-user fields plus the caller's own
 * times, which must be integer epoch seconds not in the future.
 */
export function importUserSchema(nowSeconds: number) {
  const at = pastEpochSeconds(nowSeconds);
  return userFields.extend({
    createdAt: at.optional(),
    lastActiveAt: at.optional(),
    deactivatedAt: at.optional(),
  });
}
