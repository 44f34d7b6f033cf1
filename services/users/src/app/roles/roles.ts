import { ApiError } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { UserReadModels } from '../../adapters/readModels.js';
import { featureCatalog, featureSpec, permissionCatalog, permissionSpec } from '../../domain/roles/catalog.js';
import type { PermissionValue } from '../../domain/roles/catalog.js';
import { DEFAULT_ROLE, rolesDecider, rolesStream } from '../../domain/roles/roles.js';
import type { NewRole, RemovableRoleField, RoleChanges, RolesCommand } from '../../domain/roles/roles.js';
import type { RoleDoc } from '../../projections/roles/roles.js';
import { listMeta, pagination } from '@chat/http';
import type { ListCursor } from '@chat/http';
import { UserCommands } from '../context.js';
import type { UsersDeps } from '../context.js';
import { renderRole } from '../views.js';

function effectivePermissions(doc: RoleDoc): Record<string, PermissionValue> {
  const set = JSON.parse(doc.permissions) as Record<string, PermissionValue>;
  return Object.fromEntries(permissionCatalog.map((spec) => [spec.id, set[spec.id] ?? spec.defaultValue]));
}

/** Roles, their RBAC permissions and restricted features; every app has the `default` role. */
export class RolesApp {
  private readonly runner: UserCommands;
  private readonly readModels: UserReadModels;

  constructor(deps: UsersDeps) {
    this.runner = new UserCommands(deps);
    this.readModels = deps.readModels;
  }

  private run(context: RequestContext, command: RolesCommand) {
    return this.runner.run(context, rolesDecider, rolesStream(context.actor.appId), command, this.runner.now());
  }

  /** The default role is written on first use, so it has a real creation time and events. */
  private async ensureDefault(context: RequestContext): Promise<void> {
    if (await this.readModels.findRole(context.actor.appId, DEFAULT_ROLE)) return;
    await this.run(context, { type: 'EnsureDefaultRole', now: this.runner.epochNow() });
  }

  private async role(context: RequestContext, role: string): Promise<RoleDoc> {
    if (role === DEFAULT_ROLE) await this.ensureDefault(context);
    const doc = await this.readModels.findRole(context.actor.appId, role);
    if (!doc) throw new ApiError('ERR_ROLE_NOT_FOUND', `The role ${role} does not exist.`);
    return doc;
  }

  async list(context: RequestContext, cursor: ListCursor, perPage: number) {
    await this.ensureDefault(context);
    const { total, items, more } = await this.readModels.listRoles(context.actor.appId, cursor.position(perPage), perPage);
    const last = items.at(-1);
    return { data: items.map(renderRole), meta: listMeta(total, items.length, perPage, cursor, cursor.next(last ? [last.role] : undefined, more)) };
  }

  async create(context: RequestContext, role: NewRole) {
    await this.run(context, { type: 'CreateRole', role, now: this.runner.epochNow() });
    return renderRole(await this.role(context, role.role));
  }

  async get(context: RequestContext, role: string) {
    return renderRole(await this.role(context, role));
  }

  async update(context: RequestContext, role: string, changes: RoleChanges, removed: RemovableRoleField[]) {
    await this.run(context, { type: 'UpdateRole', role, changes, removed, now: this.runner.epochNow() });
    return renderRole(await this.role(context, role));
  }

  async delete(context: RequestContext, role: string) {
    const usersWithRole = role === DEFAULT_ROLE ? 0 : await this.readModels.countUsersWithRole(context.actor.appId, role);
    await this.run(context, { type: 'DeleteRole', role, usersWithRole, now: this.runner.epochNow() });
    return { success: true, message: `Role ${role} has been deleted successfully.` };
  }

  async listPermissions(context: RequestContext, role: string) {
    const doc = await this.role(context, role);
    const current = effectivePermissions(doc);
    const data = permissionCatalog.map((spec) => ({
      id: spec.id,
      type: 'role',
      title: spec.title,
      dataType: spec.dataType,
      availableValues: spec.availableValues,
      defaultValue: spec.defaultValue,
      value: current[spec.id],
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    }));
    return { data, meta: { pagination: pagination(data.length, data.length, Math.max(100, data.length), 1) } };
  }

  async setPermissions(context: RequestContext, role: string, permissions: Record<string, PermissionValue>) {
    await this.run(context, { type: 'SetPermissions', role, permissions, now: this.runner.epochNow() });
    const doc = await this.role(context, role);
    const results: Record<string, unknown> = {};
    for (const id of Object.keys(permissions)) {
      results[id] = { success: true, message: `Permission with id ${id} have been mapped successfully to role ${role}.` };
    }
    return { ...results, permissions: effectivePermissions(doc) };
  }

  async unsetPermission(context: RequestContext, role: string, permissionId: string) {
    if (!permissionSpec(permissionId)) {
      throw new ApiError('ERR_PERMISSION_NOT_FOUND', `The permission ${permissionId} does not exist.`);
    }
    await this.run(context, { type: 'ResetPermission', role, permissionId, now: this.runner.epochNow() });
    return { permissions: effectivePermissions(await this.role(context, role)) };
  }

  async listRestricted(context: RequestContext, role: string) {
    const doc = await this.role(context, role);
    const data = doc.restricted.map((restricted) => {
      const spec = featureSpec(restricted.key);
      return { title: spec?.title ?? restricted.key, key: restricted.key, path: spec?.path ?? '', createdAt: restricted.createdAt };
    });
    return { data, meta: { pagination: pagination(data.length, data.length, Math.max(100, data.length), 1) } };
  }

  async restrict(context: RequestContext, role: string, features: string[]) {
    await this.run(context, { type: 'RestrictFeatures', role, features, now: this.runner.epochNow() });
    const results: Record<string, unknown> = {};
    for (const key of features) results[key] = { success: true, message: `The feature ${key} has been restricted successfully.` };
    return results;
  }

  async allow(context: RequestContext, role: string, features: string[] | 'all') {
    await this.run(context, { type: 'AllowFeatures', role, features, now: this.runner.epochNow() });
    return { success: true, message: 'The feature has been allowed successfully.' };
  }
}

export const knownFeatureKeys: readonly string[] = featureCatalog.map((spec) => spec.key);
