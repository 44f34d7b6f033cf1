import { ApiError } from '@chat/contracts';
import type {
  RoleCreated,
  RoleDeleted,
  RoleFeaturesAllowed,
  RoleFeaturesRestricted,
  RolePermissionsReset,
  RolePermissionsSet,
  RoleUpdated,
} from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import type { PermissionValue } from './catalog.js';

export const DEFAULT_ROLE = 'default';
export const DEFAULT_ROLE_NAME = 'Default';
/** CometChat: 25 roles per app, the default role included. */
export const MAX_ROLES_PER_APP = 25;

export type NewRole = Omit<RoleCreated, 'createdAt'>;
export type RoleChanges = RoleUpdated['changes'];
export type RemovableRoleField = RoleUpdated['removed'][number];

export type RolesCommand =
  /** Materialises the default role, which every app has from the start. */
  | { type: 'EnsureDefaultRole'; now: number }
  | { type: 'CreateRole'; role: NewRole; now: number }
  | { type: 'UpdateRole'; role: string; changes: RoleChanges; removed: RemovableRoleField[]; now: number }
  /** `usersWithRole` is gathered from the users read model: a role in use is not deleted. */
  | { type: 'DeleteRole'; role: string; usersWithRole: number; now: number }
  | { type: 'SetPermissions'; role: string; permissions: Record<string, PermissionValue>; now: number }
  | { type: 'ResetPermission'; role: string; permissionId: string; now: number }
  | { type: 'RestrictFeatures'; role: string; features: string[]; now: number }
  | { type: 'AllowFeatures'; role: string; features: string[] | 'all'; now: number };

export type RolesEvent =
  | DomainEvent<'RoleCreated', RoleCreated>
  | DomainEvent<'RoleUpdated', RoleUpdated>
  | DomainEvent<'RoleDeleted', RoleDeleted>
  | DomainEvent<'RolePermissionsSet', RolePermissionsSet>
  | DomainEvent<'RolePermissionsReset', RolePermissionsReset>
  | DomainEvent<'RoleFeaturesRestricted', RoleFeaturesRestricted>
  | DomainEvent<'RoleFeaturesAllowed', RoleFeaturesAllowed>;

export interface RoleFacts {
  /** Permission ids set away from their defaults. */
  permissions: string[];
  restricted: string[];
}

/** All roles of one app in one stream: the 25-role limit and uniqueness are checked in one place. */
export interface RolesState {
  roles: Record<string, RoleFacts>;
}

function roleNotFound(role: string): ApiError {
  return new ApiError('ERR_ROLE_NOT_FOUND', `The role ${role} does not exist.`);
}

function defaultRoleEvent(now: number): RolesEvent {
  return { type: 'RoleCreated', data: { role: DEFAULT_ROLE, name: DEFAULT_ROLE_NAME, createdAt: now } };
}

/** The events that make the default role real when it is not yet, followed by the command's own. */
function withDefault(state: RolesState, now: number, decided: RolesEvent[]): RolesEvent[] {
  if (Object.hasOwn(state.roles, DEFAULT_ROLE) || decided.length === 0) return decided;
  return [defaultRoleEvent(now), ...decided];
}

function exists(state: RolesState, role: string): boolean {
  return role === DEFAULT_ROLE || Object.hasOwn(state.roles, role);
}

function requireRole(state: RolesState, role: string): RoleFacts {
  if (!exists(state, role)) throw roleNotFound(role);
  return state.roles[role] ?? { permissions: [], restricted: [] };
}

function decideForRole(command: Exclude<RolesCommand, { type: 'EnsureDefaultRole' }>, state: RolesState): RolesEvent[] {
  const { now } = command;
  switch (command.type) {
    case 'CreateRole': {
      const { role } = command.role;
      if (exists(state, role)) throw new ApiError('ERR_ROLE_ALREADY_EXISTS', `The role ${role} already exists.`);
      const count = Object.keys(state.roles).length + (Object.hasOwn(state.roles, DEFAULT_ROLE) ? 0 : 1);
      if (count >= MAX_ROLES_PER_APP) {
        throw new ApiError('ERR_ROLES_LIMIT_EXCEEDED', `An app can have at most ${MAX_ROLES_PER_APP} roles.`);
      }
      return [{ type: 'RoleCreated', data: { ...command.role, createdAt: now } }];
    }
    case 'UpdateRole': {
      requireRole(state, command.role);
      const empty = command.removed.length === 0 && Object.values(command.changes).every((v) => v === undefined);
      if (empty) return [];
      return [{ type: 'RoleUpdated', data: { role: command.role, changes: command.changes, removed: command.removed, updatedAt: now } }];
    }
    case 'DeleteRole': {
      if (command.role === DEFAULT_ROLE) throw new ApiError('ERR_ROLE_DELETE_DENIED', 'The default role cannot be deleted.');
      requireRole(state, command.role);
      if (command.usersWithRole > 0) {
        throw new ApiError(
          'ERR_ROLE_IN_USE',
          `The role ${command.role} is assigned to ${command.usersWithRole} user(s); assign them another role first.`,
        );
      }
      return [{ type: 'RoleDeleted', data: { role: command.role, deletedAt: now } }];
    }
    case 'SetPermissions': {
      requireRole(state, command.role);
      if (Object.keys(command.permissions).length === 0) return [];
      return [{ type: 'RolePermissionsSet', data: { role: command.role, permissions: command.permissions, updatedAt: now } }];
    }
    case 'ResetPermission': {
      const facts = requireRole(state, command.role);
      if (!facts.permissions.includes(command.permissionId)) return [];
      return [{ type: 'RolePermissionsReset', data: { role: command.role, permissionIds: [command.permissionId], updatedAt: now } }];
    }
    case 'RestrictFeatures': {
      const facts = requireRole(state, command.role);
      const fresh = [...new Set(command.features)].filter((key) => !facts.restricted.includes(key));
      if (fresh.length === 0) return [];
      return [{ type: 'RoleFeaturesRestricted', data: { role: command.role, features: fresh, restrictedAt: now } }];
    }
    case 'AllowFeatures': {
      const facts = requireRole(state, command.role);
      const wanted = command.features === 'all' ? facts.restricted : command.features;
      const allowed = [...new Set(wanted)].filter((key) => facts.restricted.includes(key));
      if (allowed.length === 0) return [];
      return [{ type: 'RoleFeaturesAllowed', data: { role: command.role, features: allowed, allowedAt: now } }];
    }
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function decide(command: RolesCommand, state: RolesState): RolesEvent[] {
  if (command.type === 'EnsureDefaultRole') {
    return Object.hasOwn(state.roles, DEFAULT_ROLE) ? [] : [defaultRoleEvent(command.now)];
  }
  return withDefault(state, command.now, decideForRole(command, state));
}

function updateRole(state: RolesState, role: string, change: (facts: RoleFacts) => RoleFacts): RolesState {
  const facts = state.roles[role] ?? { permissions: [], restricted: [] };
  return { roles: { ...state.roles, [role]: change(facts) } };
}

function evolve(state: RolesState, event: RolesEvent): RolesState {
  switch (event.type) {
    case 'RoleCreated':
      return { roles: { ...state.roles, [event.data.role]: { permissions: [], restricted: [] } } };
    case 'RoleUpdated':
      return state;
    case 'RoleDeleted': {
      const roles = { ...state.roles };
      delete roles[event.data.role];
      return { roles };
    }
    case 'RolePermissionsSet':
      return updateRole(state, event.data.role, (facts) => ({
        ...facts,
        permissions: [...new Set([...facts.permissions, ...Object.keys(event.data.permissions)])],
      }));
    case 'RolePermissionsReset':
      return updateRole(state, event.data.role, (facts) => ({
        ...facts,
        permissions: facts.permissions.filter((id) => !event.data.permissionIds.includes(id)),
      }));
    case 'RoleFeaturesRestricted':
      return updateRole(state, event.data.role, (facts) => ({ ...facts, restricted: [...facts.restricted, ...event.data.features] }));
    case 'RoleFeaturesAllowed':
      return updateRole(state, event.data.role, (facts) => ({
        ...facts,
        restricted: facts.restricted.filter((key) => !event.data.features.includes(key)),
      }));
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const rolesDecider: Decider<RolesState, RolesCommand, RolesEvent> = {
  initialState: () => ({ roles: {} }),
  decide,
  evolve,
  snapshotVersion: 1,
};

export function rolesStream(appId: string): string {
  return `roles:${appId}`;
}
