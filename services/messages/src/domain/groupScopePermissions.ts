import { ApiError, groupScopePermissionCatalog } from '@chat/contracts';
import type { GroupScope } from '@chat/contracts';

/**
 * What a group member may do in the group's conversation, per the group's scope permissions (SBAC,
 * `PUT /groups/{guid}/scopes/{scope}/permissions`). The conversations service owns the values; this
 * service learns them from `GroupScopePermissionsChanged` and applies them to its own operations.
 * `listMembers` and `initiateCall` gate operations of other services (and `list-group-members`
 * ignores onBehalfOf, so no member is acting there).
 */
export const memberActions = ['sendMessage', 'sendThreadedMessage', 'editMessage', 'addReaction', 'listReactions'] as const;
export type MemberAction = (typeof memberActions)[number];

/** Values set for one scope; absent ids have the catalogue's default (everything allowed). */
export type ScopeValues = Readonly<Record<string, string | readonly string[]>>;

/** The scopes a `<action>.allowedScopes` list admits: an empty (default) list admits every scope. */
function scopeAdmitted(values: ScopeValues, action: MemberAction, scope: GroupScope): boolean {
  const key = `${action}.allowedScopes`;
  if (!Object.hasOwn(groupScopePermissionCatalog, key)) return true;
  const allowed = values[key];
  const list = typeof allowed === 'string' ? allowed.split(',').filter((s) => s.length > 0) : (allowed ?? []);
  return list.length === 0 || list.includes(scope);
}

/** The actions a member of `scope` may not take, given the values set for that scope. */
export function deniedActions(values: ScopeValues, scope: GroupScope): MemberAction[] {
  return memberActions.filter((action) => values[action] === 'deny' || !scopeAdmitted(values, action, scope));
}

/** CometChat answers an RBAC or SBAC refusal with `ERR_PERMISSION_DENIED`. */
export function mustBeAllowed(denied: readonly MemberAction[] | undefined, action: MemberAction, who: string, guid: string): void {
  if (denied?.includes(action)) {
    throw new ApiError('ERR_PERMISSION_DENIED', `${who}'s scope in the group ${guid} does not have the ${action} permission.`);
  }
}
