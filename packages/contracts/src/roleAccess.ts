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
 * Which permission and which restricted feature gate each operation, for calls made on behalf of a
 * user. Every restrictable feature key of the users service's catalogue is here or in `bodyGates`
 * (a unit test there holds both to it). Where the catalogue ignores `onBehalfOf` (list users, friends,
 * blocked users, group members) the header still names the acting user for these gates, and the
 * service still acts as the app (gateway `gatedUser`). Value-level permissions
 * (`sendMessage.allowedMessageTypes`…) need the body: the gateway hands them to the service that
 * parses it (`roleLimits`, `valueGates` below).
 */
export const operationGates: Readonly<Record<string, Gate>> = {
  'list-users': { permissions: ['listUsers'], feature: 'u.listUsers' },
  'get-user': { permissions: [], feature: 'u.getUser' },
  'list-all-friends': { permissions: [], feature: 'u.listFriends' },
  'block-users': { permissions: [], feature: 'u.blockUsers' },
  'list-blocked-users': { permissions: [], feature: 'u.listBlockedUsers' },
  'send-message': { permissions: ['sendMessage'], feature: 'u.sendMessage' },
  'send-thread-message': { permissions: ['sendMessage', 'sendThreadedMessage'], feature: 'u.sendMessage' },
  'update-message': { permissions: ['editMessage'], feature: 'u.editMessage' },
  'delete-message': { permissions: ['deleteMessage'], feature: 'u.deleteMessage' },
  'add-message-reactions': { permissions: ['addReaction'] },
  'list-all-messages': { permissions: [], feature: 'u.listMessages' },
  'user-list-user-messages': { permissions: [], feature: 'u.listMessages' },
  'user-list-group-messages': { permissions: [], feature: 'u.listMessages' },
  'list-all-thread-messages': { permissions: [], feature: 'u.listMessages' },
  'create-group': { permissions: ['createGroup'], feature: 'u.createGroup' },
  'list-groups': { permissions: ['listGroups'], feature: 'u.listGroups' },
  'update-group': { permissions: [], feature: 'u.updateGroup' },
  'delete-group': { permissions: [], feature: 'u.deleteGroup' },
  'add-group-members': { permissions: ['joinGroup'], feature: 'u.joinGroup' },
  'list-group-members': { permissions: [], feature: 'u.listGroupMembers' },
  'list-all-conversations': { permissions: [], feature: 'u.listConversations' },
};

/**
 * A toggle and a feature that refuse one kind of request of an operation, which only its body shows:
 * a call starts with a call message (`category: "call"`, `data.action: "initiated"`, ADR 0017), so
 * `u.initiateCall` and `initiateCall` refuse those sends and let every other message through. The
 * service that parses the body applies them (`roleLimits`/`limitDenial`).
 */
interface BodyGate {
  permission: string;
  feature: string;
  fact: 'initiatesCall';
}
const callGates: readonly BodyGate[] = [{ permission: 'initiateCall', feature: 'u.initiateCall', fact: 'initiatesCall' }];
export const bodyGates: Readonly<Record<string, readonly BodyGate[]>> = {
  'send-message': callGates,
  'send-thread-message': callGates,
};

/** The operations a restricted feature key refuses (whole, or the requests its body gate names). */
export function operationsGatedBy(feature: string): string[] {
  const whole = Object.entries(operationGates).flatMap(([operationId, gate]) => (gate.feature === feature ? [operationId] : []));
  const partly = Object.entries(bodyGates).flatMap(([operationId, gates]) => (gates.some((gate) => gate.feature === feature) ? [operationId] : []));
  return [...new Set([...whole, ...partly])];
}

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
  /** The request starts a call (a call message with action `initiated`). */
  initiatesCall?: boolean;
}

/** The facts a value list constrains. */
type ListFact = Exclude<keyof ValueFacts, 'initiatesCall'>;

/**
 * Value-level permissions applied, by operation: each is a list that, when not empty, holds the only
 * values the role may use for one fact (empty, the default, allows every value). The others
 * (`*.mode`, `*.allowedRoles`, `allowedReceiverRoles`, `*.denyForScopes`, `listGroups.` and
 * `listMessages.` lists, `joinGroup.allowedGroupTypes`) need facts the gateway and the acting
 * service do not hold on this path (friendships, other users' roles, group scopes, filtered lists):
 * they are stored and shown, not applied (README).
 */
const sendLimits: readonly (readonly [permission: string, fact: ListFact])[] = [
  ['sendMessage.allowedReceiverTypes', 'receiverType'],
  ['sendMessage.allowedMessageCategories', 'category'],
  ['sendMessage.allowedMessageTypes', 'messageType'],
  ['sendMessage.allowedCustomTypes', 'customType'],
  ['sendMessage.allowedMimeTypes', 'mimeTypes'],
];
export const valueGates: Readonly<Record<string, readonly (readonly [permission: string, fact: ListFact])[]>> = {
  'send-message': sendLimits,
  'send-thread-message': sendLimits,
  'create-group': [['createGroup.allowedGroupTypes', 'groupType']],
};

/**
 * What the gateway hands the acting service: the role, its non-empty value lists for the operation,
 * and the body gates (`bodyGates`) its permissions or restricted features close.
 */
export interface RoleLimits {
  role: string;
  allowed: Record<string, string[]>;
  /** Denied toggles and restricted features among the operation's body gates (`initiateCall`, `u.initiateCall`). */
  refused?: string[];
}

/** The role's value limits and closed body gates on an operation, or null when none applies (the common case). */
export function roleLimits(operationId: string, access: RoleAccess): RoleLimits | null {
  let allowed: Record<string, string[]> | null = null;
  for (const [permission] of valueGates[operationId] ?? []) {
    const value = access.permissions[permission];
    if (Array.isArray(value) && value.length > 0) (allowed ??= {})[permission] = value;
  }
  const refused = (bodyGates[operationId] ?? []).flatMap((gate) => [
    ...(access.permissions[gate.permission] === 'deny' ? [gate.permission] : []),
    ...(access.restrictedFeatures.includes(gate.feature) ? [gate.feature] : []),
  ]);
  if (!allowed && refused.length === 0) return null;
  return { role: access.role, allowed: allowed ?? {}, ...(refused.length > 0 ? { refused } : {}) };
}

/** Why the role's value limits refuse the request, or null when they allow it. */
export function limitDenial(operationId: string, limits: RoleLimits, facts: ValueFacts): string | null {
  for (const gate of bodyGates[operationId] ?? []) {
    if (facts[gate.fact] !== true) continue;
    if (limits.refused?.includes(gate.feature)) return `The feature ${gate.feature} is restricted for the role ${limits.role}.`;
    if (limits.refused?.includes(gate.permission)) return `The role ${limits.role} is denied the ${gate.permission} permission.`;
  }
  for (const [permission, fact] of valueGates[operationId] ?? []) {
    const allowed = limits.allowed[permission];
    const given = facts[fact];
    if (!allowed || given === undefined) continue;
    const refused = (typeof given === 'string' ? [given] : given).find((value) => !allowed.includes(value));
    if (refused !== undefined) return `The role ${limits.role} allows ${permission} ${allowed.join(', ')} only, not ${refused}.`;
  }
  return null;
}
