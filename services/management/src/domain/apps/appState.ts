import { ApiError } from '@chat/contracts';
import type {
  ApiKeyCreated,
  ApiKeyDeleted,
  ApiKeyScope,
  ApiKeyUpdated,
  AppCreated,
  AppDeleted,
  AppSettingsReset,
  AppSettingsSet,
  AppUsageRequested,
  CollaboratorRole,
  CollaboratorsChanged,
  TenantCreated,
  WebhookCreated,
  WebhookDeleted,
  WebhookSecretRotated,
  WebhookTriggersChanged,
  WebhookUpdated,
} from '@chat/contracts';
import type { DomainEvent } from '@chat/eventsourcing';
import type { SettingEntry } from './settings.js';
import type { WebhookState } from '../webhooks/webhooks.js';

/** One aggregate per app: the app and its keys change together, so the key cap is enforced atomically. */
export function appStreamId(appId: string): string {
  return `app:${appId}`;
}

export interface ApiKeyState {
  keyId: string;
  keyHash: string;
  maskedKey: string;
  name: string;
  scope: ApiKeyScope;
  createdBy: string;
  createdAt: number;
}

export interface CollaboratorState {
  email: string;
  role: CollaboratorRole;
  addedAt: number;
}

/** Plain JSON (no Map) because the state is stored as the commit's snapshot. */
export type AppState =
  | { status: 'absent' }
  /** Deleted apps stay deleted: their id is never reused and their keys never come back. */
  | { status: 'deleted'; appId: string; deletedAt: number }
  | {
      status: 'active';
      appId: string;
      name: string;
      region: string;
      createdAt: number;
      keys: Record<string, ApiKeyState>;
      settings: SettingEntry[];
      collaborators: Record<string, CollaboratorState>;
      webhooks: Record<string, WebhookState>;
    };

export type AppEvent =
  | DomainEvent<'AppCreated', AppCreated>
  | DomainEvent<'ApiKeyCreated', ApiKeyCreated>
  | DomainEvent<'ApiKeyUpdated', ApiKeyUpdated>
  | DomainEvent<'ApiKeyDeleted', ApiKeyDeleted>
  | DomainEvent<'AppDeleted', AppDeleted>
  | DomainEvent<'AppUsageRequested', AppUsageRequested>
  | DomainEvent<'TenantCreated', TenantCreated>
  | DomainEvent<'CollaboratorsChanged', CollaboratorsChanged>
  | DomainEvent<'AppSettingsSet', AppSettingsSet>
  | DomainEvent<'AppSettingsReset', AppSettingsReset>
  | DomainEvent<'WebhookCreated', WebhookCreated>
  | DomainEvent<'WebhookUpdated', WebhookUpdated>
  | DomainEvent<'WebhookSecretRotated', WebhookSecretRotated>
  | DomainEvent<'WebhookDeleted', WebhookDeleted>
  | DomainEvent<'WebhookTriggersAdded', WebhookTriggersChanged>
  | DomainEvent<'WebhookTriggersRemoved', WebhookTriggersChanged>;

export type ActiveApp = Extract<AppState, { status: 'active' }>;

export function requireApp(state: AppState): ActiveApp {
  if (state.status !== 'active') throw new ApiError('ERR_APP_NOT_FOUND', 'The app does not exist.');
  return state;
}
