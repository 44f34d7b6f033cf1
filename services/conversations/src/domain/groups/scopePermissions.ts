import { ApiError, groupScopePermissionCatalog, groupScopePermissionIds } from '@chat/contracts';
import type { GroupScope, GroupScopePermissionId } from '@chat/contracts';
import type { GroupState, PermissionValue } from './groupState.js';

export function isScopePermissionId(id: string): id is GroupScopePermissionId {
  return Object.hasOwn(groupScopePermissionCatalog, id);
}

function badPermission(id: string, problem: string): ApiError {
  return new ApiError('ERR_BAD_REQUEST', `permissions.${id}: ${problem}`, { fields: [{ field: `permissions.${id}`, problem }] });
}

/**
 * Checks requested values against the catalogue. `stringArray` permissions accept an array or a
 * comma-separated string (CometChat's responses show the latter) and are kept as a de-duplicated array.
 */
export function parseScopePermissions(raw: Record<string, unknown>): Partial<Record<GroupScopePermissionId, PermissionValue>> {
  const entries = Object.entries(raw);
  if (entries.length === 0) {
    throw new ApiError('ERR_BAD_REQUEST', 'permissions: must name at least one permission', {
      fields: [{ field: 'permissions', problem: 'must name at least one permission' }],
    });
  }
  const parsed: Partial<Record<GroupScopePermissionId, PermissionValue>> = {};
  for (const [id, value] of entries) {
    if (!isScopePermissionId(id)) throw badPermission(id, `unknown permission; known: ${groupScopePermissionIds.join(', ')}`);
    const spec = groupScopePermissionCatalog[id];
    const allowed: readonly string[] = spec.availableValues;
    if (spec.dataType === 'string') {
      if (typeof value !== 'string' || !allowed.includes(value)) throw badPermission(id, `must be one of ${allowed.join(', ')}`);
      parsed[id] = value;
      continue;
    }
    const list = typeof value === 'string' ? value.split(',').map((v) => v.trim()).filter((v) => v.length > 0) : value;
    if (!Array.isArray(list) || !list.every((v): v is string => typeof v === 'string' && allowed.includes(v))) {
      throw badPermission(id, `must be a list of ${allowed.join(', ')}`);
    }
    parsed[id] = [...new Set(list)];
  }
  return parsed;
}

/** How a value reads in responses: lists as CometChat shows them, comma-separated. */
function shown(value: PermissionValue | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

export function effectivePermissions(state: GroupState, scope: GroupScope): Record<string, string> {
  const set = state.permissions[scope] ?? {};
  return Object.fromEntries(
    groupScopePermissionIds.map((id) => [id, shown(set[id]?.value ?? groupScopePermissionCatalog[id].defaultValue)]),
  );
}

export interface ScopePermissionResource {
  id: string;
  type: 'scope';
  title: string;
  description: string;
  dataType: string;
  availableValues: string[];
  defaultValue: string | string[];
  /** Ours: the value in force for this scope of this group. */
  value: string | string[];
  createdAt: number;
  updatedAt: number;
}

export function listScopePermissions(state: GroupState, scope: GroupScope): ScopePermissionResource[] {
  const set = state.permissions[scope] ?? {};
  return groupScopePermissionIds.map((id) => {
    const spec = groupScopePermissionCatalog[id];
    const current = set[id];
    return {
      id,
      type: 'scope',
      title: spec.title,
      description: spec.title,
      dataType: spec.dataType,
      availableValues: [...spec.availableValues],
      defaultValue: typeof spec.defaultValue === 'string' ? spec.defaultValue : [...spec.defaultValue],
      value: current ? (typeof current.value === 'string' ? current.value : [...current.value]) : typeof spec.defaultValue === 'string' ? spec.defaultValue : [...spec.defaultValue],
      createdAt: state.createdAt,
      updatedAt: current?.at ?? state.createdAt,
    };
  });
}
