import { UID_PATTERN, groupScopes, groupTypes } from '@chat/contracts';
import { pastEpochSeconds } from '@chat/http';
import { z } from 'zod';
import { cursorParameter } from '@chat/http';

/** CometChat: metadata up to 5 KB, 25 tags of up to 100 characters, icon a URL of up to 3000. */
export const MAX_METADATA_BYTES = 5 * 1024;
/** Uids one request may name across all member lists. */
export const MAX_UIDS_PER_REQUEST = 1000;

/** A guid follows the uid rules: 1–100 characters of a-z, 0-9, '-' and '_', forced to lower case. */
export const GUID_PATTERN = UID_PATTERN;

const guid = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.string().regex(GUID_PATTERN, 'must be 1 to 100 characters of a-z, 0-9, "-" and "_"'));
/** A reference to a user: malformed uids are reported as unknown users, not as bad requests. */
const uidRef = z
  .string()
  .min(1)
  .max(200)
  .transform((value) => value.toLowerCase());
const name = z.string().trim().min(1, 'must not be empty').max(100);
const url = z.url({ protocol: /^https?$/ }).max(3000);
const description = z.string().max(255);
const password = z.string().min(1, 'must not be empty').max(100);
const metadata = z
  .record(z.string(), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, 'must be at most 5 KB');
const tags = z.array(z.string().trim().min(1).max(100)).max(25);
const uidList = z.array(uidRef).max(MAX_UIDS_PER_REQUEST).default([]);

interface MemberListsInput {
  admins: string[];
  moderators: string[];
  participants: string[];
  usersToBan: string[];
}

/** A uid may appear in one list only (repeats within a list are merged), and in few enough lists. */
function checkMemberLists(lists: MemberListsInput, ctx: z.RefinementCtx, requireOne: boolean): void {
  const seen = new Set<string>();
  for (const [list, uids] of Object.entries(lists) as Array<[keyof MemberListsInput, string[]]>) {
    for (const uid of new Set(uids)) {
      if (seen.has(uid)) ctx.addIssue({ code: 'custom', path: [list], message: `${uid} appears in more than one list` });
      seen.add(uid);
    }
  }
  if (seen.size > MAX_UIDS_PER_REQUEST) ctx.addIssue({ code: 'custom', path: [], message: `at most ${MAX_UIDS_PER_REQUEST} uids per request` });
  if (requireOne && seen.size === 0) {
    ctx.addIssue({ code: 'custom', path: [], message: 'name at least one uid in admins, moderators, participants or usersToBan' });
  }
}

function distinctLists(lists: MemberListsInput): MemberListsInput {
  return {
    admins: [...new Set(lists.admins)],
    moderators: [...new Set(lists.moderators)],
    participants: [...new Set(lists.participants)],
    usersToBan: [...new Set(lists.usersToBan)],
  };
}

const memberLists = z
  .object({ admins: uidList, moderators: uidList, participants: uidList, usersToBan: uidList })
  .superRefine((lists, ctx) => checkMemberLists(lists, ctx, false))
  .transform(distinctLists);

/** A group's own fields, as create-group and data import take them. */
const groupFields = z.object({
  guid,
  name,
  type: z.enum(groupTypes),
  password: password.optional(),
  icon: url.optional(),
  description: description.optional(),
  metadata: metadata.optional(),
  tags: tags.default([]),
});

export const createGroupSchema = groupFields.extend({
  owner: uidRef.optional(),
  members: memberLists.default({ admins: [], moderators: [], participants: [], usersToBan: [] }),
});

const unsettable = ['icon', 'description', 'metadata'] as const;

export const updateGroupSchema = z
  .object({
    name: name.optional(),
    type: z.enum(groupTypes).optional(),
    password: password.optional(),
    icon: url.optional(),
    description: description.optional(),
    metadata: metadata.optional(),
    owner: uidRef.optional(),
    tags: tags.optional(),
    unset: z.array(z.enum(unsettable)).max(unsettable.length).default([]),
  })
  .superRefine((body, ctx) => {
    for (const field of body.unset) {
      if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: ['unset'], message: `${field} is both set and unset` });
    }
  });

export const addMembersSchema = z
  .object({
    admins: uidList,
    moderators: uidList,
    participants: uidList,
    usersToBan: uidList,
    /** Ours: the password a user gives to join a password group on their own. */
    password: password.optional(),
  })
  .superRefine(({ password: _password, ...lists }, ctx) => checkMemberLists(lists, ctx, true))
  .transform(({ password: given, ...lists }) => ({ password: given, lists: distinctLists(lists) }));

export const changeScopeSchema = z.object({ scope: z.enum(groupScopes).default('participant') });

export const scopeSchema = z.enum(groupScopes);

export const setScopePermissionsSchema = z.object({ permissions: z.record(z.string(), z.unknown()) });

export const pagingSchema = z.object({
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  cursor: cursorParameter,
});

/** An empty query parameter (`?searchKey=`) means the parameter was not given. */
function blankAsAbsent(value: unknown): unknown {
  return value === '' ? undefined : value;
}

/** An optional list in a query string: `a,b` or the parameter repeated. */
function listOf<T extends z.ZodType<string, string>>(item: T) {
  return z.preprocess(
    (value) => blankAsAbsent(Array.isArray(value) ? value.join(',') : value),
    z
      .string()
      .transform((value) => value.split(',').map((part) => part.trim()).filter((part) => part.length > 0))
      .pipe(z.array(item).min(1).max(100))
      .optional(),
  );
}

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

export const listGroupsSchema = pagingSchema.extend({
  searchKey: z.preprocess(blankAsAbsent, z.string().trim().min(1).max(100).optional()),
  searchIn: listOf(z.enum(['name', 'guid', 'description'])),
  sortBy: z.enum(['name', 'guid', 'createdAt']).default('name'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
  affix: z.enum(['append', 'prepend']).optional(),
  updatedAt: z.coerce.number().int().min(0).optional(),
  withTags: booleanFlag.default(false),
  tags: listOf(z.string().min(1).max(100)),
  type: z.enum(groupTypes).optional(),
  types: listOf(z.enum(groupTypes)),
  hasJoined: booleanFlag.optional(),
});

export const listMembersSchema = pagingSchema.extend({
  scopes: listOf(z.enum(groupScopes)),
  status: z.enum(['available', 'offline']).optional(),
});

/** One group of `POST /data_import/groups`; a password group needs its password. */
export function importGroupSchema(nowSeconds: number) {
  return groupFields
    .extend({
      owner: z.string().trim().toLowerCase().regex(UID_PATTERN, 'must be a valid uid').optional(),
      createdAt: pastEpochSeconds(nowSeconds).optional(),
    })
    .refine((group) => group.type !== 'password' || group.password !== undefined, { path: ['password'], message: 'a password group needs a password' });
}

/** One membership of `POST /data_import/members`, keyed `<guid>_member_<uid>` by the caller. */
export function importMemberSchema(nowSeconds: number) {
  return z.object({
    memberId: z.string().min(1).max(300),
    guid,
    uid: z.string().trim().toLowerCase().regex(UID_PATTERN, 'must be a valid uid'),
    scope: z.enum(groupScopes).default('participant'),
    isBanned: z.boolean().default(false),
    joinedAt: pastEpochSeconds(nowSeconds).optional(),
  });
}
