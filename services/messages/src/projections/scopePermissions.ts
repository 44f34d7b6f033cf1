import { groupScopePermissionEventTypes } from '@chat/contracts';
import type { EventOf, GroupScope } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/** Values set per scope; an absent id has the catalogue default. */
export type ScopePermissionValues = Partial<Record<GroupScope, Record<string, string | string[]>>>;

/**
 * The scope permissions of one group (SBAC), as sends, edits and reactions need them. The values are
 * kept as JSON text: FerretDB decodes nested documents on every read (ADR 0006), and a command only
 * ever reads the whole set.
 */
export interface ScopePermissionsDoc {
  kind: 'scopePermissions';
  appId: string;
  guid: string;
  values: string;
}

type ScopePermissionsEvent = EventOf<(typeof groupScopePermissionEventTypes)[number]>;

export function scopePermissionsId(appId: string, guid: string): string {
  return `scopeperms:${appId}:${guid}`;
}

export function scopePermissionValues(doc: ScopePermissionsDoc | null | undefined): ScopePermissionValues {
  return doc ? (JSON.parse(doc.values) as ScopePermissionValues) : {};
}

/** From the group's own stream, so a re-created group starts from the defaults again. */
export const scopePermissionsProjection: Projection<ScopePermissionsDoc, ScopePermissionsEvent> = {
  name: 'scope_permissions',
  eventTypes: groupScopePermissionEventTypes,
  documentIds: (event) => [scopePermissionsId(event.appId, event.data.guid)],
  evolve(doc, event) {
    switch (event.type) {
      case 'GroupCreated':
      case 'GroupDeleted':
        return null;
      case 'GroupScopePermissionsChanged': {
        const values = scopePermissionValues(doc);
        const scoped = { ...(values[event.data.scope] ?? {}), ...event.data.permissions };
        for (const id of event.data.removed) delete scoped[id];
        values[event.data.scope] = scoped;
        return { kind: 'scopePermissions', appId: event.appId, guid: event.data.guid, values: JSON.stringify(values) };
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
