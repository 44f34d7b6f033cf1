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
 * here; value-level permissions (`sendMessage.allowedMessageTypes`…) need the body and are not
 * applied yet (README).
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
