import { z } from 'zod';

/**
 * RBAC role permissions and restricted features, as they gate operations made on behalf of a user
 * (`onBehalfOf`). The users service owns the values (roles stream); the gateway asks it for the
 * acting user's `RoleAccess` and refuses a gated operation before any service runs it.
 */
export const roleAccessSchema = z.object({
  role: z.string(),
  /** Permissions set away from their default (every toggle defaults to `allow`). */
  permissions: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** Restricted feature keys (`u.sendMessage`…). */
  restrictedFeatures: z.array(z.string()),
});
export type RoleAccess = z.infer<typeof roleAccessSchema>;

interface Gate {
  /** Allow/deny permission ids that must all be `allow`. */
  permissions: readonly string[];
  /** The restricted-feature key that turns the operation off. */
  feature?: string;
}

/**
 * Which permission and which restricted feature gate each operation. Operations whose catalogue
 * rule ignores `onBehalfOf` (list users, list members, friends…) have no acting user and are not
 * here; value-level permissions (`sendMessage.allowedMessageTypes`…) need the body: the gateway
 * hands them to the service that parses it (`roleLimits`, `valueGates` below).
 */
export const operationGates: Readonly<Record<string, Gate>> = {
  'send-message': { permissions: ['sendMessage'], feature: 'u.sendMessage' },
  'send-thread-message': { permissions: ['sendMessage', 'sendThreadedMessage'], feature: 'u.sendMessage' },
  'update-message': { permissions: ['editMessage'], feature: 'u.editMessage' },
  'delete-message': { permissions: ['deleteMessage'], feature: 'u.deleteMessage' },
  'add-message-reactions': { permissions: ['addReaction'] },
  'list-all-messages': { permissions: [], feature: 'u.listMessages' },
  'user-list-user-messages': { permissions: [], feature: 'u.listMessages' },
  'user-list-group-messages': { permissions: [], feature: 'u.listMessages' },
  'list-all-thread-messages': { permissions: [], feature: 'u.listMessages' },
  'get-user': { permissions: [], feature: 'u.getUser' },
  'create-group': { permissions: ['createGroup'], feature: 'u.createGroup' },
  'list-groups': { permissions: ['listGroups'], feature: 'u.listGroups' },
  'update-group': { permissions: [], feature: 'u.updateGroup' },
  'delete-group': { permissions: [], feature: 'u.deleteGroup' },
  'add-group-members': { permissions: ['joinGroup'], feature: 'u.joinGroup' },
  'list-all-conversations': { permissions: [], feature: 'u.listConversations' },
};

/** Why the role denies the operation, or null when it allows it. */
export function roleDenial(operationId: string, access: RoleAccess): string | null {
  const gate = operationGates[operationId];
  if (!gate) return null;
  const denied = gate.permissions.find((id) => access.permissions[id] === 'deny');
  if (denied) return `The role ${access.role} is denied the ${denied} permission.`;
  if (gate.feature !== undefined && access.restrictedFeatures.includes(gate.feature)) {
    return `The feature ${gate.feature} is restricted for the role ${access.role}.`;
  }
  return null;
}

/**
 * The facts of a request that value-level permissions are checked against, as the service that
 * parsed the body knows them: a message's receiver type, category, type and attachments' MIME
 * types, a new group's type.
 */
export interface ValueFacts {
  receiverType?: string;
  category?: string;
  /** The message's type (for category `message`) … */
  messageType?: string;
  /** … or its custom type (category `custom`). */
  customType?: string;
  mimeTypes?: readonly string[];
  groupType?: string;
}

/**
 * Value-level permissions applied, by operation: each is a list that, when not empty, holds the only
 * values the role may use for one fact (empty, the default, allows every value). The others
 * (`*.mode`, `*.allowedRoles`, `allowedReceiverRoles`, `*.denyForScopes`, `listGroups.` and
 * `listMessages.` lists, `joinGroup.allowedGroupTypes`) need facts the gateway and the acting
 * service do not hold on this path (friendships, other users' roles, group scopes, filtered lists):
 * they are stored and shown, not applied (README).
 */
const sendLimits: readonly (readonly [permission: string, fact: keyof ValueFacts])[] = [
  ['sendMessage.allowedReceiverTypes', 'receiverType'],
  ['sendMessage.allowedMessageCategories', 'category'],
  ['sendMessage.allowedMessageTypes', 'messageType'],
  ['sendMessage.allowedCustomTypes', 'customType'],
  ['sendMessage.allowedMimeTypes', 'mimeTypes'],
];
export const valueGates: Readonly<Record<string, readonly (readonly [permission: string, fact: keyof ValueFacts])[]>> = {
  'send-message': sendLimits,
  'send-thread-message': sendLimits,
  'create-group': [['createGroup.allowedGroupTypes', 'groupType']],
};

/** What the gateway hands the acting service: the role and its non-empty value lists for the operation. */
export interface RoleLimits {
  role: string;
  allowed: Record<string, string[]>;
}

/** The role's value limits on an operation, or null when none applies (the common case). */
export function roleLimits(operationId: string, access: RoleAccess): RoleLimits | null {
  const gates = valueGates[operationId];
  if (!gates) return null;
  let allowed: Record<string, string[]> | null = null;
  for (const [permission] of gates) {
    const value = access.permissions[permission];
    if (Array.isArray(value) && value.length > 0) (allowed ??= {})[permission] = value;
  }
  return allowed ? { role: access.role, allowed } : null;
}

/** Why the role's value limits refuse the request, or null when they allow it. */
export function limitDenial(operationId: string, limits: RoleLimits, facts: ValueFacts): string | null {
  for (const [permission, fact] of valueGates[operationId] ?? []) {
    const allowed = limits.allowed[permission];
    const given = facts[fact];
    if (!allowed || given === undefined) continue;
    const refused = (typeof given === 'string' ? [given] : given).find((value) => !allowed.includes(value));
    if (refused !== undefined) return `The role ${limits.role} allows ${permission} ${allowed.join(', ')} only, not ${refused}.`;
  }
  return null;
}
