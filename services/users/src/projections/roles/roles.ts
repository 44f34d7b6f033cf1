import { roleEventTypes } from '@chat/contracts';
import type { EventOf, RoleUpdated } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export interface RestrictedFeature {
  key: string;
  createdAt: number;
}

/** Client JSON (`metadata`, `settings`) and the permission map (ids contain dots) are stored as text. */
export interface RoleDoc {
  appId: string;
  role: string;
  name: string;
  description?: string;
  metadata?: string;
  settings?: string;
  /** JSON text of `{ permissionId: value }` for the permissions set away from their defaults. */
  permissions: string;
  restricted: RestrictedFeature[];
  deleted: boolean;
  createdAt: number;
  updatedAt: number;
}

type Handled = EventOf<(typeof roleEventTypes)[number]>;

export function roleDocId(appId: string, role: string): string {
  return `${appId}:${role}`;
}

function withPermissions(doc: RoleDoc, change: (current: Record<string, unknown>) => void, at: number): RoleDoc {
  const permissions = JSON.parse(doc.permissions) as Record<string, unknown>;
  change(permissions);
  return { ...doc, permissions: JSON.stringify(permissions), updatedAt: at };
}

function updated(doc: RoleDoc, update: RoleUpdated): RoleDoc {
  const next: RoleDoc = { ...doc, updatedAt: update.updatedAt };
  const { name, description, metadata, settings } = update.changes;
  if (name !== undefined) next.name = name;
  if (description !== undefined) next.description = description;
  if (metadata !== undefined) next.metadata = JSON.stringify(metadata);
  if (settings !== undefined) next.settings = JSON.stringify(settings);
  for (const field of update.removed) delete next[field];
  return next;
}

export const rolesProjection: Projection<RoleDoc, Handled> = {
  name: 'roles',
  eventTypes: roleEventTypes,
  documentIds: (event) => [roleDocId(event.appId, event.data.role)],
  sourceOf: () => 'roles',
  evolve(doc, event) {
    if (event.type === 'RoleCreated') {
      const { role, name, description, metadata, settings, createdAt } = event.data;
      return {
        appId: event.appId,
        role,
        name,
        ...(description !== undefined ? { description } : {}),
        ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}),
        ...(settings !== undefined ? { settings: JSON.stringify(settings) } : {}),
        permissions: '{}',
        restricted: [],
        deleted: false,
        createdAt,
        updatedAt: createdAt,
      };
    }
    if (!doc || doc.deleted) return doc;
    switch (event.type) {
      case 'RoleUpdated':
        return updated(doc, event.data);
      case 'RoleDeleted':
        return { ...doc, deleted: true, permissions: '{}', restricted: [], updatedAt: event.data.deletedAt };
      case 'RolePermissionsSet':
        return withPermissions(doc, (current) => Object.assign(current, event.data.permissions), event.data.updatedAt);
      case 'RolePermissionsReset':
        return withPermissions(
          doc,
          (current) => {
            for (const id of event.data.permissionIds) delete current[id];
          },
          event.data.updatedAt,
        );
      case 'RoleFeaturesRestricted':
        return {
          ...doc,
          restricted: [...doc.restricted, ...event.data.features.map((key) => ({ key, createdAt: event.data.restrictedAt }))],
          updatedAt: event.data.restrictedAt,
        };
      case 'RoleFeaturesAllowed':
        return {
          ...doc,
          restricted: doc.restricted.filter((feature) => !event.data.features.includes(feature.key)),
          updatedAt: event.data.allowedAt,
        };
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
