import { appEventTypes, appSettingsEventTypes } from '@chat/contracts';
import type { CollaboratorRole, EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { mergeSettings } from '../../domain/apps/settings.js';
import type { SettingEntry } from '../../domain/apps/settings.js';

export const APPS_COLLECTION = 'apps';

export interface AppDocument {
  appId: string;
  name: string;
  region: string;
  createdAt: number;
  /** The app's own settings (defaults are not stored). */
  settings: SettingEntry[];
  collaborators: { email: string; role: CollaboratorRole; addedAt: number }[];
  /** Set when the app was created through `POST /tenants`. */
  owner?: { tenantId: string; name: string; email: string };
  /** Deleted apps stay as tombstones, so a redelivered AppCreated cannot revive one. */
  deleted?: boolean;
  deletedAt?: number;
}

const appDocumentEventTypes = [...appEventTypes, ...appSettingsEventTypes, 'CollaboratorsChanged', 'TenantCreated'] as const;
type AppDocumentEvent = EventOf<(typeof appDocumentEventTypes)[number]>;

/** One document per app (`_id` = app id). Keys live in their own read model and are joined on read. */
export const appsProjection: Projection<AppDocument, AppDocumentEvent> = {
  name: APPS_COLLECTION,
  eventTypes: appDocumentEventTypes,
  documentIds: (event) => [event.data.appId],
  sourceOf: () => 'app',
  evolve: (document, event) => {
    if (event.type === 'AppCreated') {
      const { appId, name, region, createdAt } = event.data;
      return document ?? { appId, name, region, createdAt, settings: [], collaborators: [] };
    }
    if (!document) return null;
    switch (event.type) {
      case 'AppDeleted':
        return { ...document, deleted: true, deletedAt: event.data.deletedAt };
      case 'TenantCreated':
        return { ...document, owner: { tenantId: event.data.tenantId, name: event.data.name, email: event.data.email } };
      case 'AppSettingsSet':
        return { ...document, settings: mergeSettings(document.settings, event.data.settings) };
      case 'AppSettingsReset':
        return { ...document, settings: [] };
      case 'CollaboratorsChanged': {
        const gone = new Set([...event.data.removed, ...event.data.added.map((a) => a.email)]);
        const kept = document.collaborators.filter((c) => !gone.has(c.email));
        const added = event.data.added.map(({ email, role }) => ({ email, role, addedAt: event.data.changedAt }));
        return { ...document, collaborators: [...kept, ...added] };
      }
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  },
};
