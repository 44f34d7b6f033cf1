import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { MAX_ROLES_PER_APP, rolesDecider } from './roles.js';
import type { RolesEvent } from './roles.js';

const spec = specFor(rolesDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;
const defaultCreated: RolesEvent = { type: 'RoleCreated', data: { role: 'default', name: 'Default', createdAt: 1 } };
const created = (role: string, createdAt = 2): RolesEvent => ({ type: 'RoleCreated', data: { role, name: role, createdAt } });

describe('roles decider', () => {
  it('materialises the default role once', () => {
    spec.given([]).when({ type: 'EnsureDefaultRole', now: 1 }).then([defaultCreated]);
    spec.given([defaultCreated]).when({ type: 'EnsureDefaultRole', now: 2 }).thenNothingHappens();
  });

  it('creates a role, making the default role real first', () => {
    spec.given([]).when({ type: 'CreateRole', role: { role: 'mod', name: 'mod' }, now: 1 }).then([defaultCreated, { type: 'RoleCreated', data: { role: 'mod', name: 'mod', createdAt: 1 } }]);
    spec.given([defaultCreated]).when({ type: 'CreateRole', role: { role: 'mod', name: 'mod' }, now: 2 }).then([created('mod')]);
  });

  it('refuses duplicates, the default role, and a 26th role', () => {
    spec.given([defaultCreated, created('mod')]).when({ type: 'CreateRole', role: { role: 'mod', name: 'x' }, now: 3 }).thenThrows(refusedWith('ERR_ROLE_ALREADY_EXISTS'));
    spec.given([]).when({ type: 'CreateRole', role: { role: 'default', name: 'x' }, now: 3 }).thenThrows(refusedWith('ERR_ROLE_ALREADY_EXISTS'));
    const full = [defaultCreated, ...Array.from({ length: MAX_ROLES_PER_APP - 1 }, (_, i) => created(`r${i}`))];
    spec.given(full).when({ type: 'CreateRole', role: { role: 'extra', name: 'x' }, now: 3 }).thenThrows(refusedWith('ERR_ROLES_LIMIT_EXCEEDED'));
  });

  it('updates existing roles only; an empty update changes nothing', () => {
    spec.given([defaultCreated, created('mod')]).when({ type: 'UpdateRole', role: 'mod', changes: { name: 'M' }, removed: ['settings'], now: 4 }).then([
      { type: 'RoleUpdated', data: { role: 'mod', changes: { name: 'M' }, removed: ['settings'], updatedAt: 4 } },
    ]);
    spec.given([defaultCreated]).when({ type: 'UpdateRole', role: 'ghost', changes: { name: 'M' }, removed: [], now: 4 }).thenThrows(refusedWith('ERR_ROLE_NOT_FOUND'));
    spec.given([defaultCreated, created('mod')]).when({ type: 'UpdateRole', role: 'mod', changes: {}, removed: [], now: 4 }).thenNothingHappens();
  });

  it('deletes an unused role; refuses the default role, an unknown one and one in use', () => {
    spec.given([defaultCreated, created('mod')]).when({ type: 'DeleteRole', role: 'mod', usersWithRole: 0, now: 5 }).then([{ type: 'RoleDeleted', data: { role: 'mod', deletedAt: 5 } }]);
    spec.given([defaultCreated]).when({ type: 'DeleteRole', role: 'default', usersWithRole: 0, now: 5 }).thenThrows(refusedWith('ERR_ROLE_DELETE_DENIED'));
    spec.given([defaultCreated]).when({ type: 'DeleteRole', role: 'ghost', usersWithRole: 0, now: 5 }).thenThrows(refusedWith('ERR_ROLE_NOT_FOUND'));
    spec.given([defaultCreated, created('mod')]).when({ type: 'DeleteRole', role: 'mod', usersWithRole: 2, now: 5 }).thenThrows(refusedWith('ERR_ROLE_IN_USE'));
    spec.given([defaultCreated, created('mod'), { type: 'RoleDeleted', data: { role: 'mod', deletedAt: 5 } }])
      .when({ type: 'CreateRole', role: { role: 'mod', name: 'mod' }, now: 6 })
      .then([{ type: 'RoleCreated', data: { role: 'mod', name: 'mod', createdAt: 6 } }]);
  });

  it('sets permissions and resets only those set', () => {
    const set: RolesEvent = { type: 'RolePermissionsSet', data: { role: 'mod', permissions: { sendMessage: 'deny' }, updatedAt: 7 } };
    spec.given([defaultCreated, created('mod')]).when({ type: 'SetPermissions', role: 'mod', permissions: { sendMessage: 'deny' }, now: 7 }).then([set]);
    spec.given([defaultCreated, created('mod'), set]).when({ type: 'ResetPermission', role: 'mod', permissionId: 'sendMessage', now: 8 }).then([
      { type: 'RolePermissionsReset', data: { role: 'mod', permissionIds: ['sendMessage'], updatedAt: 8 } },
    ]);
    spec.given([defaultCreated, created('mod')]).when({ type: 'ResetPermission', role: 'mod', permissionId: 'sendMessage', now: 8 }).thenNothingHappens();
    spec.given([]).when({ type: 'SetPermissions', role: 'ghost', permissions: { sendMessage: 'deny' }, now: 7 }).thenThrows(refusedWith('ERR_ROLE_NOT_FOUND'));
  });

  it('restricts features once and allows restricted ones (or all of them)', () => {
    const restricted: RolesEvent = { type: 'RoleFeaturesRestricted', data: { role: 'mod', features: ['u.listUsers'], restrictedAt: 9 } };
    spec.given([defaultCreated, created('mod')]).when({ type: 'RestrictFeatures', role: 'mod', features: ['u.listUsers', 'u.listUsers'], now: 9 }).then([restricted]);
    spec.given([defaultCreated, created('mod'), restricted]).when({ type: 'RestrictFeatures', role: 'mod', features: ['u.listUsers'], now: 9 }).thenNothingHappens();
    spec.given([defaultCreated, created('mod'), restricted]).when({ type: 'AllowFeatures', role: 'mod', features: 'all', now: 10 }).then([
      { type: 'RoleFeaturesAllowed', data: { role: 'mod', features: ['u.listUsers'], allowedAt: 10 } },
    ]);
    spec.given([defaultCreated, created('mod')]).when({ type: 'AllowFeatures', role: 'mod', features: ['u.listUsers'], now: 10 }).thenNothingHappens();
  });
});
