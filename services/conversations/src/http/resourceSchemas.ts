import { groupScopes, groupTypes } from '@chat/contracts';
import { z } from 'zod';

/*
 * The resources this service answers with, as its views render them (domain/groupsView.ts,
 * domain/conversationView.ts, the use cases): the response side of the OpenAPI description
 * (openapi.ts). Loose objects: the fields a view always writes are required, the rest typed.
 */

const scope = z.enum(groupScopes);

/** `renderGroup`: `scope`, `joinedAt` and `hasJoined` only for an acting user. */
export const groupResource = z.looseObject({
  guid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  icon: z.string().optional(),
  type: z.enum(groupTypes),
  metadata: z.record(z.string(), z.unknown()).optional(),
  owner: z.string().optional(),
  scope: scope.optional(),
  membersCount: z.number().int().min(0),
  joinedAt: z.number().int().optional(),
  conversationId: z.string(),
  hasJoined: z.boolean().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  tags: z.array(z.string()).optional(),
});

/** `userSummary`: a member's or banned user's public profile (only the uid if the user is unknown here). */
const userSummary = {
  uid: z.string(),
  name: z.string().optional(),
  avatar: z.string().optional(),
  link: z.string().optional(),
  status: z.string().optional(),
  role: z.string().optional(),
  createdAt: z.number().int().optional(),
  updatedAt: z.number().int().optional(),
};

export const memberResource = z.looseObject({ ...userSummary, scope, joinedAt: z.number().int() });
export const bannedUserResource = z.looseObject({ ...userSummary, bannedAt: z.number().int() });

/** One uid's answer of add-members: the membership, or why it was refused. */
const memberOutcome = z.union([
  z.looseObject({ success: z.literal(true), data: z.looseObject({ guid: z.string(), uid: z.string(), scope, joinedAt: z.number().int() }).optional() }),
  z.looseObject({ success: z.literal(false), error: z.looseObject({ code: z.string(), message: z.string() }) }),
]);

/** add-group-members: per list the caller sent (`admins`, `moderators`, `participants`, `usersToBan`), per uid. */
export const addMembersAnswer = z.record(z.string(), z.record(z.string(), memberOutcome));

/** change-group-member-scope. */
export const memberScopeResource = z.looseObject({ guid: z.string(), uid: z.string(), scope, joinedAt: z.number().int() });

const permissionValue = z.union([z.string(), z.array(z.string())]);

export const scopePermissionResource = z.looseObject({
  id: z.string(),
  type: z.literal('scope'),
  title: z.string(),
  description: z.string(),
  dataType: z.string(),
  availableValues: z.array(z.string()),
  defaultValue: permissionValue,
  value: permissionValue,
  createdAt: z.number().int(),
});

/** A scope's permissions after a change, with one `{success, message}` per permission set. */
export const scopePermissionsAnswer = z.looseObject({ permissions: z.record(z.string(), permissionValue) });

/** `renderConversation`: the peer (user or group) as `conversationWith`, pins only while pinned. */
export const conversationResource = z.looseObject({
  conversationId: z.string(),
  conversationType: z.enum(['user', 'group']),
  unreadMessageCount: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  lastMessage: z.record(z.string(), z.unknown()).optional(),
  conversationWith: z.looseObject({ conversationId: z.string() }),
  tags: z.array(z.string()).optional(),
  pinnedBy: z.string().optional(),
  pinnedAt: z.number().int().optional(),
});

/** An app-wide pin. */
export const globalPinResource = z.union([
  z.looseObject({ uid: z.string(), conversationType: z.literal('user'), pinnedAt: z.number().int() }),
  z.looseObject({ guid: z.string(), conversationType: z.literal('group'), pinnedAt: z.number().int() }),
]);

/** An acknowledgement; CometChat spells `Message` with a capital M in the user read/delivered answers. */
export const acknowledgement = z.looseObject({ success: z.literal(true), message: z.string().optional(), Message: z.string().optional() });
