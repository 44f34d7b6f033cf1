import { ApiError } from '@chat/contracts';
import type { NotificationChannel, NotificationProvider, NotificationProviderDefaultSet, NotificationProviderRemoved, NotificationProviderSaved } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { effectiveSettings, mergeDeep } from './settings.js';
import type { SettingsPatch } from './settings.js';

export function appConfigStreamId(appId: string): string {
  return `notifications-app:${appId}`;
}

/** The one provider of its kind per app (custom push, Twilio, SendGrid, custom SMS and email) has this id. */
export const SINGLE_PROVIDER_ID = 'default';

export function providerKey(provider: NotificationProvider, providerId: string): string {
  return `${provider}:${providerId}`;
}

export type ProviderEntry = Omit<NotificationProviderSaved, 'savedAt'> & { savedAt: number };

export interface AppConfigState {
  /** The whole settings document once changed; null = the defaults. */
  settings: Record<string, unknown> | null;
  providers: Record<string, ProviderEntry>;
  /** The provider a push token goes through when it names none. */
  defaults: { fcm?: string; apns?: string };
}

export type AppConfigEvent =
  | DomainEvent<'NotificationSettingsChanged', { settings: Record<string, unknown>; changedAt: number }>
  | DomainEvent<'NotificationSettingsReset', { resetAt: number }>
  | DomainEvent<'NotificationProviderSaved', NotificationProviderSaved>
  | DomainEvent<'NotificationProviderRemoved', NotificationProviderRemoved>
  | DomainEvent<'NotificationProviderDefaultSet', NotificationProviderDefaultSet>;

export interface ProviderChange {
  channel: NotificationChannel;
  provider: NotificationProvider;
  providerId: string;
  settings: Record<string, unknown>;
  /** Sealed values of the secret fields the request carried. */
  secrets: Record<string, string>;
  hints: Record<string, string>;
}

export type AppConfigCommand =
  | { type: 'PatchSettings'; patch: SettingsPatch; at: number }
  | { type: 'ResetSettings'; at: number }
  /** `create` replaces whatever was there; `update` needs the provider and keeps what the request left out. */
  | { type: 'SaveProvider'; mode: 'create' | 'update'; change: ProviderChange; at: number }
  | { type: 'RemoveProvider'; channel: NotificationChannel; provider: NotificationProvider; providerId: string; at: number }
  | { type: 'SetDefaultProvider'; provider: 'fcm' | 'apns'; providerId: string; at: number };

function missing(provider: NotificationProvider, providerId: string): ApiError {
  return provider === 'fcm' || provider === 'apns'
    ? new ApiError('ERR_PUSH_PROVIDER_NOT_FOUND', `providerId: no ${provider.toUpperCase()} provider '${providerId}' exists.`)
    : new ApiError('ERR_PROVIDER_NOT_CONFIGURED', `No ${provider} provider is configured for this channel.`);
}

function decide(command: AppConfigCommand, state: AppConfigState): AppConfigEvent[] {
  switch (command.type) {
    case 'PatchSettings':
      return [{ type: 'NotificationSettingsChanged', data: { settings: mergeDeep(effectiveSettings(state.settings), command.patch), changedAt: command.at } }];
    case 'ResetSettings':
      return state.settings === null ? [] : [{ type: 'NotificationSettingsReset', data: { resetAt: command.at } }];
    case 'SaveProvider': {
      const { change } = command;
      const existing = state.providers[providerKey(change.provider, change.providerId)];
      if (command.mode === 'update' && !existing) throw missing(change.provider, change.providerId);
      const base = command.mode === 'update' ? existing : undefined;
      return [
        {
          type: 'NotificationProviderSaved',
          data: {
            ...change,
            settings: { ...base?.settings, ...change.settings },
            secrets: { ...base?.secrets, ...change.secrets },
            hints: { ...base?.hints, ...change.hints },
            savedAt: command.at,
          },
        },
      ];
    }
    case 'RemoveProvider': {
      if (!state.providers[providerKey(command.provider, command.providerId)]) throw missing(command.provider, command.providerId);
      const { channel, provider, providerId, at } = command;
      return [{ type: 'NotificationProviderRemoved', data: { channel, provider, providerId, removedAt: at } }];
    }
    case 'SetDefaultProvider': {
      if (!state.providers[providerKey(command.provider, command.providerId)]) throw missing(command.provider, command.providerId);
      if (state.defaults[command.provider] === command.providerId) return [];
      return [{ type: 'NotificationProviderDefaultSet', data: { provider: command.provider, providerId: command.providerId, setAt: command.at } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

/** Shared with the read model: the app document folds the same events the same way. */
export function evolveAppConfig(state: AppConfigState, event: AppConfigEvent): AppConfigState {
  switch (event.type) {
    case 'NotificationSettingsChanged':
      return { ...state, settings: event.data.settings };
    case 'NotificationSettingsReset':
      return { ...state, settings: null };
    case 'NotificationProviderSaved': {
      const entry = event.data;
      const defaults = { ...state.defaults };
      // The first FCM (APNs) provider is the default until another is chosen.
      if ((entry.provider === 'fcm' || entry.provider === 'apns') && !defaults[entry.provider]) defaults[entry.provider] = entry.providerId;
      return { ...state, providers: { ...state.providers, [providerKey(entry.provider, entry.providerId)]: entry }, defaults };
    }
    case 'NotificationProviderRemoved': {
      const providers = { ...state.providers };
      delete providers[providerKey(event.data.provider, event.data.providerId)];
      const defaults = { ...state.defaults };
      const kind = event.data.provider;
      if ((kind === 'fcm' || kind === 'apns') && defaults[kind] === event.data.providerId) {
        const next = Object.values(providers).find((p) => p.provider === kind);
        if (next) defaults[kind] = next.providerId;
        else delete defaults[kind];
      }
      return { ...state, providers, defaults };
    }
    case 'NotificationProviderDefaultSet':
      return { ...state, defaults: { ...state.defaults, [event.data.provider]: event.data.providerId } };
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export const emptyAppConfig = (): AppConfigState => ({ settings: null, providers: {}, defaults: {} });

export const appConfigDecider: Decider<AppConfigState, AppConfigCommand, AppConfigEvent> = {
  initialState: emptyAppConfig,
  evolve: evolveAppConfig,
  decide,
  snapshotVersion: 1,
};
